// bench/load.sh's workflow: AGENTS command agents at once, each making CALLS calls of a tool
// whose handler does a little async work; reports what awf spent (its own CPU, its peak memory)
// and the agents' call latencies.
import { readFileSync, readdirSync } from "node:fs";

const cpuTicks = () => {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
  return Number(fields[11]) + Number(fields[12]);
};

export default defineWorkflow({
  meta: { name: "load", description: "Many agents, many tool calls." },
  async run(wf, { argv }) {
    const agents = Number(argv[0] ?? 200);
    const calls = Number(argv[1] ?? 50);
    let handled = 0;
    const work = tool({
      description: "Do a little async work.",
      input: Type.Object({ n: Type.Integer() }),
      handler: async ({ n }) => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        handled++;
        return `did ${n}`;
      },
    });
    const cpuBefore = cpuTicks();
    const started = Date.now();
    const opened = await Promise.all(
      Array.from({ length: agents }, (_, i) =>
        wf.agents.open({ key: `a${i}`, runtime: { command: ["./agent.sh"] }, tools: { work }, env: { CALLS: String(calls) } }),
      ),
    );
    const outcomes = await Promise.all(opened.map((a) => a.run({ prompt: "Work.", timeout: "20m" })));
    const seconds = (Date.now() - started) / 1000;
    const cpuSeconds = (cpuTicks() - cpuBefore) / 100;
    const latencies = readdirSync("lat").flatMap((f) => readFileSync(`lat/${f}`, "utf8").trim().split("\n").filter(Boolean).map(Number));
    latencies.sort((a, b) => a - b);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] / 1e6;
    const peak = readFileSync("/proc/self/status", "utf8").match(/VmHWM:\s+(\d+) kB/)![1];
    return {
      agents,
      callsPerAgent: calls,
      answered: outcomes.filter((o) => o.outcome.kind === "answered").length,
      handled,
      latencies: latencies.length,
      seconds,
      callsPerSecond: handled / seconds,
      p50ms: at(0.5),
      p99ms: at(0.99),
      awfCpuMsPerCall: (cpuSeconds * 1000) / handled,
      peakMiB: Number(peak) / 1024,
    };
  },
});
