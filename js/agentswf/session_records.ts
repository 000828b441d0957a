// What a tested run's forks, compactions and changes of settings were, read from its events
// (`agent-forked`, `agent-compacted`, `settings-changed`) for agentswf/testing's TestRun.

/** A fork the tested run made. */
export interface ForkRecord {
  agent: string;
  from: string;
  harness: string;
}

/** A compaction the tested run asked for. */
export interface CompactionRecord {
  agent: string;
  id: string;
  focus: string;
  outcome: string;
  summary?: string;
  detail?: string;
}

/** A change of settings the tested run made. */
export interface SetRecord {
  agent: string;
  model?: string;
  effort?: string;
}

type Events = Record<string, any>[];

export function forkRecords(events: Events): ForkRecord[] {
  return events.filter((e) => e.event === "agent-forked").map((e) => ({ agent: e.agent, from: e.from, harness: e.harness }));
}

export function compactionRecords(events: Events): CompactionRecord[] {
  return events
    .filter((e) => e.event === "agent-compacted")
    .map((e) => {
      const record: CompactionRecord = { agent: e.agent, id: e.compaction, focus: e.focus, outcome: e.outcome };
      if (e.summary !== undefined) record.summary = e.summary;
      if (e.detail !== undefined) record.detail = e.detail;
      return record;
    });
}

export function setRecords(events: Events): SetRecord[] {
  return events
    .filter((e) => e.event === "settings-changed")
    .map((e) => {
      const record: SetRecord = { agent: e.agent };
      if (e.model !== undefined) record.model = e.model;
      if (e.effort !== undefined) record.effort = e.effort;
      return record;
    });
}
