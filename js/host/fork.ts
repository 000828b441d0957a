// awf:host/fork — what a forked copy of a host does to become a process of its own.
//
// `awf test` loads the test framework into one host, then forks that process once per test
// file (runtime/src/testing/pool.rs): each file starts from the same loaded engine, in a process
// of its own. Before the file runs, its copy takes the file's `process.argv` and its own
// `process.pid`, and gets a `Math.random` of its own: QuickJS seeds the one it has when the
// context is made, so without this every file would draw the same numbers (and, say, pick the
// same temporary names while they run side by side).

import { process } from "./process.ts";

export interface Identity {
  /** `process.argv` of the copy. */
  readonly argv: string[];
  readonly pid: number;
  /** Four random 32-bit words (from the operating system) that seed `Math.random`. */
  readonly seed: [number, number, number, number];
}

export function adopt({ argv, pid, seed }: Identity): void {
  process.argv.splice(0, process.argv.length, ...argv);
  process.pid = pid;
  Object.defineProperty(Math, "random", {
    value: xoshiro128(seed),
    writable: true,
    configurable: true,
    enumerable: false,
  });
}

/** xoshiro128** (Blackman and Vigna), two 32-bit draws per number for 53 random bits. */
function xoshiro128(seed: [number, number, number, number]): () => number {
  let [a, b, c, d] = seed.map((word) => word >>> 0);
  if ((a | b | c | d) === 0) a = 1;
  const next = (): number => {
    const result = Math.imul(rotl(Math.imul(b, 5), 7), 9) >>> 0;
    const t = b << 9;
    c ^= a;
    d ^= b;
    b ^= c;
    a ^= d;
    c ^= t;
    d = rotl(d, 11);
    return result;
  };
  // The name and length of the built-in it stands in for.
  return {
    random(): number {
      const high = next() >>> 5;
      const low = next() >>> 6;
      return (high * 67108864 + low) / 9007199254740992;
    },
  }.random;
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
