// A JavaScript JSON-RPC peer (json-rpc-2.0) on its own stdin/stdout, one message per
// line, serving tests/services/documents/interop.json for rpcsmith's GENERATED client
// that spawns it: `ask` calls the client's `double` back, `push` notifies its `pushed`.
import readline from "node:readline";
import { JSONRPCClient, JSONRPCServer, JSONRPCServerAndClient } from "json-rpc-2.0";

const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");
const peer = new JSONRPCServerAndClient(new JSONRPCServer(), new JSONRPCClient(send));
peer.addMethod("add", ([a, b]) => a + b);
peer.addMethod("ask", async ([n]) => peer.request("double", [n]));
peer.addMethod("push", ([text]) => {
  peer.notify("pushed", [text]);
  return "pushed";
});

const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (line.trim() === "") return;
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    send({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error" }, id: null });
    return;
  }
  peer.receiveAndSend(message);
});
lines.on("close", () => process.exit(0));
