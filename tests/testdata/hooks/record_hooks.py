#!/usr/bin/env python3
"""Records Claude Code's texts for hook decisions: runs Claude Code headless against
../shared/cc-oracle/fakeapi.py (loopback only, in a network namespace of its own), one
Bash tool_use per scenario, with hooks in the user settings, and writes what the model
was sent after each tool_use: the tool_result and any text blocks that follow it.

  record_hooks.py CLAUDE_BIN ../shared/cc-oracle/fakeapi.py tests/testdata/hooks/cc-hook-texts.json
"""
import json, os, shutil, signal, subprocess, sys, tempfile, time

CC, FAKEAPI, OUT = sys.argv[1:4]
if os.environ.get("REC_NETNS") != "1":
    os.execvpe("unshare", ["unshare", "-n", "-m", "sh", "-c", "ip link set lo up && exec \"$@\"", "sh",
                          sys.executable, os.path.abspath(__file__)] + sys.argv[1:], dict(os.environ, REC_NETNS="1"))

def hook(event, command, matcher="Bash"):
    return {"hooks": {event: [{"matcher": matcher, "hooks": [{"type": "command", "command": command}]}]}}

J = lambda o: "echo '" + json.dumps(o) + "'"
SCENARIOS = [
    ("pre_exit2_deny", hook("PreToolUse", "cat >/dev/null; echo 'no touching here' >&2; exit 2"), "touch made"),
    ("pre_json_deny", hook("PreToolUse", J({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "policy says no"}})), "touch made"),
    ("pre_additional_context", hook("PreToolUse", J({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "remember the towel"}})), "echo hi"),
    ("post_block", hook("PostToolUse", J({"decision": "block", "reason": "looks odd"})), "echo hi"),
    ("post_additional_context", hook("PostToolUse", J({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "checked by post.sh"}})), "echo hi"),
    ("post_exit2", hook("PostToolUse", "cat >/dev/null; echo 'post says stop' >&2; exit 2"), "echo hi"),
    ("failure_additional_context", hook("PostToolUseFailure", J({"hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": "try another path"}})), "exit 3"),
]

def is_result(m):
    c = m.get("content")
    return m.get("role") == "user" and isinstance(c, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" and b.get("tool_use_id") == "toolu_h1" for b in c)


out = {"note": "What Claude Code sent the model after one Bash tool_use with these user settings: the "
               "tool_result and the messages that followed it before the next assistant turn. Recorded by "
               "record_hooks.py.", "claude_code": subprocess.run([CC, "--version"], capture_output=True, text=True, env={"HOME": "/tmp/cc-oracle-home", "PATH": "/usr/bin:/bin"}).stdout.strip(), "cases": {}}
for name, settings, command in SCENARIOS:
    d = tempfile.mkdtemp(prefix="cchook-" + name + "-")
    home, ws, logdir = (os.path.join(d, x) for x in ("home", "ws", "api"))
    for x in (home, ws, logdir):
        os.makedirs(x)
    os.makedirs(os.path.join(home, ".claude"))
    json.dump(settings, open(os.path.join(home, ".claude", "settings.json"), "w"))
    script = {"turns": [[{"id": "toolu_h1", "name": "Bash", "input": {"command": command, "description": "x"}}]], "final_text": "done"}
    json.dump(script, open(os.path.join(d, "script.json"), "w"))
    portfile = os.path.join(d, "port")
    srv = subprocess.Popen([sys.executable, FAKEAPI, "--script", os.path.join(d, "script.json"), "--logdir", logdir, "--portfile", portfile],
                           stdout=subprocess.DEVNULL, stderr=open(os.path.join(d, "fakeapi.stderr"), "w"))
    while not os.path.exists(portfile):
        time.sleep(0.05)
    port = int(open(portfile).read())
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home, "LANG": "C.UTF-8", "TERM": "dumb",
           "ANTHROPIC_BASE_URL": "http://127.0.0.1:%d" % port, "ANTHROPIC_API_KEY": "dummy",
           "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
           "DISABLE_ERROR_REPORTING": "1"}
    argv = [CC, "-p", "go", "--output-format", "stream-json", "--verbose", "--no-session-persistence",
            "--tools=Bash", "--permission-mode", "acceptEdits", "--allowedTools=Bash", "--strict-mcp-config"]
    p = subprocess.Popen(argv, cwd=ws, env=env, stdin=subprocess.DEVNULL, stdout=open(os.path.join(d, "stream.jsonl"), "w"),
                         stderr=open(os.path.join(d, "cc.stderr"), "w"), start_new_session=True)
    try:
        p.wait(90)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    srv.send_signal(signal.SIGTERM)
    srv.wait()
    # The last main request: the user message holding the tool_result, and the messages
    # after it (the hooks' texts) up to the next assistant turn.
    last = []
    for ln in open(os.path.join(logdir, "requests.jsonl")):
        msgs = (json.loads(ln).get("body") or {}).get("messages") or []
        if any(is_result(m) for m in msgs):
            last = msgs
    i = next(i for i, m in enumerate(last) if is_result(m))
    res = next(b for b in last[i]["content"] if b.get("type") == "tool_result")
    then = []
    for m in last[i + 1:]:
        if m["role"] == "assistant":
            break
        c = m["content"]
        for b in ([{"type": "text", "text": c}] if isinstance(c, str) else c):
            if b.get("type") == "text":
                then.append({"role": m["role"], "text": b["text"]})
    out["cases"][name] = {"settings": settings, "input": {"command": command},
                          "tool_result": {"content": res["content"], "is_error": bool(res.get("is_error"))},
                          "then": then}
    print(name, json.dumps(out["cases"][name]["tool_result"]), file=sys.stderr)
json.dump(out, open(OUT, "w"), indent=1, sort_keys=True)
