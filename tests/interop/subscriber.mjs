// A JavaScript subscriber (the `ws` package, raw JSON-RPC as a dapp writes it) to
// rpcsmith's GENERATED server of schemas/eth-newheads.json over WebSocket.
// Usage: node subscriber.mjs <port> <heads>. Subscribes to newHeads, prints
// `subscribed <id>`, checks the first <heads> eth_subscription notifications (its id,
// block numbers 1, 2, ...), unsubscribes, and prints one line per check; exits non-zero
// on failure.
import WebSocket from "ws";
import { deadline, expect, fail } from "./check.mjs";

const [port, wanted] = [process.argv[2], Number(process.argv[3])];
const timer = deadline(10000);

const socket = new WebSocket(`ws://127.0.0.1:${port}/`);
const answers = new Map();
const heads = [];
let subscription = null;
let headsDone;
const allHeads = new Promise((resolve) => (headsDone = resolve));

socket.on("error", (error) => fail(`socket: ${error.message}`));
socket.on("message", (data) => {
  const message = JSON.parse(data.toString());
  if (message.id !== undefined) {
    answers.get(message.id)?.(message);
    return;
  }
  if (message.method !== "eth_subscription") {
    fail(`unexpected message ${data}`);
  }
  if (message.params.subscription !== subscription) {
    fail(`a head for ${message.params.subscription}, subscribed as ${subscription}`);
  }
  heads.push(message.params.result.number);
  if (heads.length === wanted) {
    headsDone();
  }
});

let nextId = 1;
function call(method, params) {
  const id = nextId++;
  return new Promise((resolve) => {
    answers.set(id, resolve);
    socket.send(JSON.stringify({ jsonrpc: "2.0", method, params, id }));
  });
}

await new Promise((resolve) => socket.on("open", resolve));
const chain = await call("eth_chainId", []);
expect("eth_chainId", chain.result, "0x1");
const subscribed = await call("eth_subscribe", ["newHeads"]);
subscription = subscribed.result;
if (!/^0x[0-9a-f]+$/.test(subscription)) {
  fail(`subscription id ${JSON.stringify(subscribed)}`);
}
console.log(`subscribed ${subscription}`);
await allHeads;
expect(
  "heads in order",
  heads,
  Array.from({ length: wanted }, (_, i) => `0x${(i + 1).toString(16)}`),
);
const refused = await call("eth_subscribe", ["logs"]);
expect("unknown subscription type refused", refused.error?.code, -32602);
const unsubscribed = await call("eth_unsubscribe", [subscription]);
expect("eth_unsubscribe", unsubscribed.result, true);
const again = await call("eth_unsubscribe", [subscription]);
expect("eth_unsubscribe again", again.result, false);
socket.close();
clearTimeout(timer);
console.log("done");
