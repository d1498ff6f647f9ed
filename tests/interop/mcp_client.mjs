// The official MCP TypeScript SDK's client (@modelcontextprotocol/sdk, pinned in
// package-lock.json) against rpcsmith's MCP example (examples/mcp), generated from
// schemas/mcp.json.
// Usage: node mcp_client.mjs stdio <path of the mcp-example binary>
//        node mcp_client.mjs http <url of its Streamable HTTP endpoint>
// Over stdio the SDK spawns the binary itself (StdioClientTransport) and reads its
// stderr, where the example reports a `slow` call it dropped. Prints one line per
// check; exits non-zero on failure.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ProgressNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { deadline, expect, fail } from "./check.mjs";

const [mode, target] = process.argv.slice(2);
const timer = deadline(20000);

function transport() {
  if (mode === "stdio") {
    return new StdioClientTransport({ command: target, args: ["--stdio"], stderr: "pipe" });
  }
  if (mode === "http") {
    return new StreamableHTTPClientTransport(new URL(target));
  }
  fail(`unknown mode ${mode}`);
}

/** Resolves once the child's stderr has had a line matching `pattern`. */
function stderrLine(stream, pattern) {
  let seen = "";
  return new Promise((resolve) => {
    stream.on("data", (chunk) => {
      seen += chunk.toString();
      const match = seen.split("\n").find((line) => pattern.test(line));
      if (match) resolve(match);
    });
  });
}

const client = new Client({ name: "rpcsmith-interop", version: "1.0.0" });
const channel = transport();
const cancelled =
  mode === "stdio" ? stderrLine(channel.stderr, /slow cancelled after/) : null;
await client.connect(channel);
expect("initialize: server", client.getServerVersion().name, "rpcsmith-mcp-example");
expect("initialize: tools offered", Boolean(client.getServerCapabilities().tools), true);
await client.ping();
console.log("ok ping");

const { tools } = await client.listTools();
expect("tools/list", tools.map((tool) => tool.name).slice(0, 3), ["add", "echo", "slow"]);
expect("tools/list: input schema", tools[0].inputSchema.required, ["a", "b"]);

const sum = await client.callTool({ name: "add", arguments: { a: 20, b: 22 } });
expect("tools/call add", sum.content, [{ type: "text", text: "42" }]);
const echoed = await client.callTool({ name: "echo", arguments: { text: "héllo" } });
expect("tools/call echo", echoed.content[0].text, "héllo");
const overflow = await client.callTool({ name: "add", arguments: { a: 1e308, b: 1e308 } });
expect("tools/call isError", overflow.isError, true);
try {
  await client.callTool({ name: "nope", arguments: {} });
  fail("an unknown tool was called");
} catch (error) {
  expect("tools/call unknown tool", error.code, -32602);
}

// Progress: the SDK sends `_meta.progressToken` because `onprogress` is given. Every
// progress notification is seen here: the SDK hands notifications to their handler a
// microtask later, after it has settled a response that came in the same read, so its
// own per-call `onprogress` misses one that came just before the answer.
const progress = [];
let onProgress = () => {};
client.setNotificationHandler(ProgressNotificationSchema, ({ params }) => {
  progress.push([params.progress, params.total, params.message]);
  onProgress();
});
const slow = await client.callTool({ name: "slow", arguments: { steps: 3 } }, undefined, {
  onprogress: () => {},
});
expect("tools/call slow", slow.content[0].text, "done 3 steps");
await new Promise((resolve) => setImmediate(resolve));
expect("progress notifications, before the answer", progress, [
  [1, 3, "step 1 of 3"],
  [2, 3, "step 2 of 3"],
  [3, 3, "step 3 of 3"],
]);

// Cancellation: aborted after its first progress report, the SDK sends
// `notifications/cancelled`; the server drops the call and answers nothing.
const controller = new AbortController();
let reports = 0;
onProgress = () => {
  reports += 1;
  controller.abort("enough");
};
try {
  await client.callTool({ name: "slow", arguments: { steps: 1000 } }, undefined, {
    signal: controller.signal,
    onprogress: () => {},
  });
  fail("the cancelled call answered");
} catch (error) {
  expect("cancelled call rejected after progress", reports, 1);
}
if (cancelled) {
  console.log(`ok server dropped the call: ${(await cancelled).trim()}`);
}
// The connection goes on.
const after = await client.callTool({ name: "add", arguments: { a: 1, b: 2 } });
expect("tools/call after cancel", after.content[0].text, "3");

await client.close();
clearTimeout(timer);
console.log("ok done");
