interface Finding {
  file: string;
}

export default defineWorkflow({
  meta: { name: "broken", description: "Does not parse." },
  run() {
    const findings: Finding[] = [;
    return findings;
  },
});
