// A JavaScript client (json-rpc-2.0) calling rpcsmith's GENERATED server of
// tests/services/documents/interop.json over HTTP and WebSocket.
// Usage: node client.mjs <port>. Prints one line per check; exits non-zero on failure.
import { JSONRPCClient, JSONRPCServerAndClient, JSONRPCServer } from "json-rpc-2.0";
import WebSocket from "ws";
import { deadline, expect, fail } from "./check.mjs";

const port = process.argv[2];
const timer = deadline(10000);

async function refused(name, call) {
  try {
    await call();
  } catch (error) {
    return error;
  }
  fail(`${name}: succeeded`);
}

async function overHttp() {
  const client = new JSONRPCClient(async (request) => {
    const response = await fetch(`http://127.0.0.1:${port}/`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(request),
    });
    if (response.status === 200) {
      client.receive(await response.json());
    } else if (response.status !== 204) {
      throw new Error(`HTTP ${response.status}`);
    }
  });
  expect("http add", await client.request("add", [20, 22]), 42);
  expect("http echo by name", await client.request("echo", { value: { a: [1, "x"] } }), { a: [1, "x"] });
  const batch = await client.requestAdvanced([
    { jsonrpc: "2.0", method: "add", params: [1, 2], id: 100 },
    { jsonrpc: "2.0", method: "nope", id: 101 },
  ]);
  expect("http batch", batch.map((r) => r.result ?? r.error.code), [3, -32601]);
  client.notify("note", ["from js"]);
  const declared = await refused("http fail", () => client.request("fail", []));
  expect("http declared error", [declared.code, declared.data], [42, { why: "asked to" }]);
  const invalid = await refused("http add strings", () => client.request("add", ["1", 2]));
  expect("http invalid params", invalid.code, -32602);
  const unknown = await refused("http nope", () => client.request("nope", []));
  expect("http method not found", unknown.code, -32601);
  const discovered = await client.request("rpc.discover");
  expect("http rpc.discover", discovered.info.title, "Interop");
}

async function overWebSocket() {
  const socket = new WebSocket(`ws://127.0.0.1:${port}/`);
  const pushed = [];
  const peer = new JSONRPCServerAndClient(
    new JSONRPCServer(),
    new JSONRPCClient((request) => socket.send(JSON.stringify(request))),
  );
  peer.addMethod("double", ([n]) => 2 * n);
  peer.addMethod("pushed", (params) => {
    pushed.push(params);
  });
  socket.on("message", (data) => peer.receiveAndSend(JSON.parse(data.toString())));
  await new Promise((resolve, reject) => {
    socket.on("open", resolve);
    socket.on("error", reject);
  });
  expect("ws add", await peer.request("add", [2, 3]), 5);
  expect("ws push answer", await peer.request("push", ["hi"]), "pushed");
  expect("ws push arrived", pushed, [["hi"]]);
  expect("ws server calls the js client", await peer.request("ask", [21]), 42);
  socket.close();
}

await overHttp();
await overWebSocket();
clearTimeout(timer);
console.log("done");
