// The one check of an options object's keys, used wherever awf reads one in JS
// (defineWorkflow, tool, agent.run, fork, compact, send, wf.parallel, wf.stage, wf.receive;
// wf.agents.open and agent.set are checked in Rust, where they are read): a key awf does not
// read is refused, never ignored, naming the closest key it does read as "did you mean". Each
// caller keeps its own list of keys beside the code that reads them, so a new option is added
// where it is read.

import { AwfError } from "../core.ts";
import { CODES } from "../errors.ts";

/**
 * Throws an `unknown-option` AwfError from `where` for the first key of `options` not in
 * `known`; `instead` says what to write for a key awf knows of but does not take (another
 * system's spelling).
 */
export function refuseUnknownOptions(where: string, options: object, known: readonly string[], instead: Readonly<Record<string, string>> = {}): void {
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const error = new AwfError(CODES.unknownOption, `${where}: unknown option \`${key}\``) as AwfError & { hint?: string };
    const closest = closestKey(key, known);
    const listed = `it takes ${known.join(", ")}`;
    error.hint = Object.hasOwn(instead, key) ? instead[key] : closest === undefined ? listed : `did you mean \`${closest}\`? ${listed}`;
    throw error;
  }
}

/** The known key nearest `word` (case-insensitive edit distance, at most a third of its length, ≥ 1), if any. */
export function closestKey(word: string, known: readonly string[]): string | undefined {
  const limit = Math.max(1, Math.floor(word.length / 3));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of known) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance, with a swap of two neighbouring letters counted as one edit. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    rows.push([i]);
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        rows[0].push(j);
        continue;
      }
      const substitution = rows[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1);
      let best = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, substitution);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2][j - 2] + 1);
      rows[i].push(best);
    }
  }
  return rows[a.length][b.length];
}
