// bench/driver.ts — what `awf run <file> -- <words>` does, for bun and deno: load the workflow
// (after bench/shim.ts has put the author globals in place), call prepare and run, print the
// JSON result on stdout and wf.log lines on stderr. No records are written.
//   bun driver.ts <file> [words...]      deno run -A driver.ts <file> [words...]

import "./shim.ts";

interface Spec {
  prepare?: (context: { argv: string[]; cwd: string }) => unknown;
  run: (wf: unknown, input: unknown) => unknown;
}

const deno = (globalThis as { Deno?: { args: string[]; cwd(): string } }).Deno;
const args = deno ? deno.args : process.argv.slice(2);
const cwd = deno ? deno.cwd() : process.cwd();
const [file, ...words] = args;
const path = file.startsWith("/") ? file : `${cwd}/${file}`;

const { default: workflow } = (await import(path)) as { default: Spec };
const input = workflow.prepare ? await workflow.prepare({ argv: words, cwd }) : { argv: words };
const wf = {
  cwd,
  log(message: string, fields: Record<string, unknown> = {}): void {
    const shown = Object.entries(fields).map(([key, value]) => ` ${key}=${typeof value === "string" ? value : JSON.stringify(value)}`);
    console.error(message + shown.join(""));
  },
};
const result = await workflow.run(wf, input);
console.log(JSON.stringify(result, null, 2));
