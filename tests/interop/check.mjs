// What the Node peers' checks share: fail with a reason, expect a value, a deadline.

/** Prints `FAIL: <why>` and exits non-zero. */
export function fail(why) {
  console.error(`FAIL: ${why}`);
  process.exit(1);
}

/** Fails unless `got` equals `want` (as JSON); prints `ok <name>` otherwise. */
export function expect(name, got, want) {
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    fail(`${name}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  }
  console.log(`ok ${name}`);
}

/** Fails after `ms` milliseconds unless cleared. */
export function deadline(ms) {
  return setTimeout(() => fail("timed out"), ms);
}
