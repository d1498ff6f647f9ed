// A JavaScript JSON-RPC server (json-rpc-2.0) over HTTP on 127.0.0.1, serving
// tests/services/documents/interop.json for rpcsmith's GENERATED client.
// Prints {"port":N} once listening; exits when its stdin closes.
import http from "node:http";
import { JSONRPCServer, JSONRPCErrorException } from "json-rpc-2.0";

const server = new JSONRPCServer();
server.addMethod("add", ([a, b]) => a + b);
server.addMethod("echo", ({ value }) => value);
server.addMethod("fail", () => {
  throw new JSONRPCErrorException("declared failure", 42, { why: "asked to" });
});
server.addMethod("note", () => {});

const httpServer = http.createServer((request, response) => {
  let body = "";
  request.on("data", (chunk) => (body += chunk));
  request.on("end", async () => {
    let answer;
    try {
      answer = await server.receive(JSON.parse(body));
    } catch {
      answer = { jsonrpc: "2.0", error: { code: -32700, message: "Parse error" }, id: null };
    }
    if (answer) {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(answer));
    } else {
      response.writeHead(204);
      response.end();
    }
  });
});

httpServer.listen(0, "127.0.0.1", () => {
  console.log(JSON.stringify({ port: httpServer.address().port }));
});
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
