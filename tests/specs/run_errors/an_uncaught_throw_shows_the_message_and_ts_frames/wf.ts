interface Finding {
  file: string;
  line: number;
}

type Report = { findings: Finding[] };

function check(report: Report): never {
  throw new Error(`${report.findings.length} findings, expected none`);
}

export default defineWorkflow({
  meta: { name: "thrower", description: "Throws from run." },
  async run() {
    await Promise.resolve();
    return check({ findings: [{ file: "a.ts", line: 1 }] });
  },
});
