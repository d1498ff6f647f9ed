// vscode-jsonrpc (the JSON-RPC layer under VS Code's language clients, pinned in
// package-lock.json) against rpcsmith's GENERATED server of
// tests/services/documents/lsp.json, spawned as a child and spoken to over its stdio
// with `Content-Length` framing.
// Usage: node lsp_client.mjs <path of the lsp-stdio binary>
// Prints one line per check; exits non-zero on failure.
import { spawn } from "node:child_process";
import rpc from "vscode-jsonrpc/node.js";
import { deadline, expect, fail } from "./check.mjs";

const timer = deadline(20000);
const child = spawn(process.argv[2], [], { stdio: ["pipe", "pipe", "pipe"] });
let stderr = "";
let onStderr = () => {};
child.stderr.on("data", (chunk) => {
  stderr += chunk.toString();
  onStderr();
});
/** Resolves once the child's stderr holds `text` (the deadline bounds the wait). */
function stderrHas(text) {
  return new Promise((resolve) => {
    onStderr = () => stderr.includes(text) && resolve(text);
    onStderr();
  });
}
const connection = rpc.createMessageConnection(
  new rpc.StreamMessageReader(child.stdout),
  new rpc.StreamMessageWriter(child.stdin),
);

// What the server sends: a request (answered with the second action) and log lines.
let asked = null;
connection.onRequest("window/showMessageRequest", (params) => {
  asked = params;
  return params.actions[1];
});
const logged = [];
let onLog = () => {};
connection.onNotification("window/logMessage", (params) => {
  logged.push(params.message);
  onLog(params.message);
});
connection.listen();

const init = await connection.sendRequest("initialize", { processId: process.pid, capabilities: {} });
expect("initialize", init.capabilities.textDocumentSync, 2);

// 300 changes, sent without waiting: each must be applied after the one before.
const uri = "file:///doc.txt";
const expected = [];
for (let version = 1; version <= 300; version++) {
  connection.sendNotification("textDocument/didChange", {
    textDocument: { uri, version },
    contentChanges: [{ text: `${version},` }],
  });
  expected.push(`${version},`);
}
const state = await connection.sendRequest("mini/documentText", { uri });
expect("300 ordered changes: version", state.version, 300);
expect("300 ordered changes: none out of order", state.outOfOrder, 0);
expect("300 ordered changes: text", state.text, expected.join(""));

// A server→client request, answered while the server's call waits for it.
const chosen = await connection.sendRequest("mini/confirm", { question: "Which?", choices: ["a", "b"] });
expect("server asked the client", asked.message, "Which?");
expect("server got the client's answer", chosen, "b");

// Cancellation: once the server says it waits, cancel; `$/cancelRequest` goes out and
// the server answers -32800 (RequestCancelled).
const source = new rpc.CancellationTokenSource();
const started = new Promise((resolve) => (onLog = (message) => message === "waiting w1" && resolve()));
const waiting = connection.sendRequest("mini/wait", { label: "w1" }, source.token);
await started;
source.cancel();
try {
  await waiting;
  fail("the cancelled call answered");
} catch (error) {
  // LSP's ErrorCodes.RequestCancelled.
  expect("cancelled with $/cancelRequest", error.code, -32800);
}
// The connection goes on, and the handler was dropped.
const again = await connection.sendRequest("mini/documentText", { uri });
expect("after the cancel", again.version, 300);
expect("the server dropped the handler", await stderrHas("wait w1 dropped"), "wait w1 dropped");

connection.dispose();
child.stdin.end();
clearTimeout(timer);
console.log("ok done");
