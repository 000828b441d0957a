// `wf.ask(question, options)`: a question for a person, the JS face of runtime/src/ask. The host
// checks and records the question (`asked`) and waits for its answer in the run folder's
// mailbox (`awf answer` writes there); the answer is checked against the question again and
// recorded (`answered`). A timeout rejects with code "ask-timeout"; in a branch of wf.race,
// wf.select or wf.parallel the question is given up when its scope is cancelled; in a tool
// handler it throws, as every wait does. Under `testWorkflow` the test's `answers` answer
// (`scriptAsks`), and a question they do not answer fails the test naming it.

import * as ops from "awf:ops";
import { AwfError, opAsync } from "../core.ts";
import { CODES } from "../errors.ts";
import { isTyped, type Typed } from "../agentswf/workflow.ts";
import { refuseInHandler } from "./identity.ts";
import { refuseUnknownOptions } from "./options.ts";
import { authorSite, currentScope, onScopeCancel } from "./scope.ts";
import { timeoutOption } from "./timeout.ts";

/** The keys `wf.ask` reads in its options (a new option is added here). */
const ASK_OPTIONS = ["choices", "schema", "context", "timeout", "key"] as const;

export interface AskOptions<T = unknown> {
  /** The answers it takes; the answer is one of them. */
  choices?: readonly string[];
  /** The shape of a typed answer (a `typed()` schema or a JSON Schema). */
  schema?: Typed<T> | object;
  /** What the person needs to see to answer (a plan, a diff): shown with the question. */
  context?: unknown;
  /** `"4h"`, `"30m"` or milliseconds; then the ask rejects with code "ask-timeout". */
  timeout?: string | number;
  /** Its name for `awf answer --question KEY` and a test's `answers` (default: made from its words). */
  key?: string;
}

/** A question as a test's answer function sees it. */
export interface AskedQuestion {
  key: string;
  question: string;
  choices?: readonly string[];
  context?: unknown;
}

/** A test's answers: key (or question) to the answer, or to a function of the question giving it. */
export type ScriptedAnswers = Record<string, unknown>;

interface Scripted {
  answers: ScriptedAnswers;
  fail(error: unknown): void;
}

const scripted = new Map<string, Scripted>();

/** Under `testWorkflow`: run `runId`'s questions are answered by `answers`; an unanswered one fails the test by `fail`. */
export function scriptAsks(runId: string, answers: ScriptedAnswers, fail: (error: unknown) => void): void {
  scripted.set(runId, { answers, fail });
}

/** The test of run `runId` is over. */
export function unscriptAsks(runId: string): void {
  scripted.delete(runId);
}

/** `wf.ask` for run `runId` (whose ops handle is `run`). */
export function createAsk(run: number, runId: string) {
  return function ask<T = string>(question: string, options?: AskOptions<T>): Promise<T> {
    // Where the author asked: a rejection that comes later carries these frames.
    const site = new Error("wf.ask");
    let opened: { key: string; base: string; timeoutMs: number | null };
    try {
      refuseInHandler("wf.ask");
      if (options !== undefined && (typeof options !== "object" || options === null)) {
        throw new TypeError('wf.ask(question, options?): options must be an object such as { choices: ["yes", "no"], timeout: "4h" }');
      }
      if (options !== undefined) refuseUnknownOptions("wf.ask(question, options?)", options, ASK_OPTIONS);
      const schema = options?.schema === undefined ? null : isTyped(options.schema) ? options.schema.schema : options.schema;
      opened = ops.ask_open({
        run,
        question,
        choices: options?.choices ?? null,
        schema,
        context: options?.context ?? null,
        timeout: timeoutOption("wf.ask(question, options?)", options?.timeout),
        key: options?.key ?? null,
        from: authorSite(site),
      }) as typeof opened;
    } catch (error) {
      return Promise.reject(error);
    }
    const test = scripted.get(runId);
    if (test) return answerScripted<T>(run, test, opened, question, options);
    const waiting = opAsync(ops.ask_wait({ run, key: opened.key, timeoutMs: opened.timeoutMs })).catch((error) => {
      throw placedAt(error, site);
    }) as Promise<T>;
    if (currentScope() === undefined) return waiting;
    return new Promise<T>((resolve, reject) => {
      const off = onScopeCancel((reason) => {
        ops.ask_give_up({ run, key: opened.key });
        reject(new AwfError(CODES.cancelled, `wf.ask was ${String(reason)}`));
      });
      waiting.then(resolve, reject).finally(off);
    });
  };
}

/** A test's answer to the question: by its key, its base key or its words. */
async function answerScripted<T>(run: number, test: Scripted, opened: { key: string; base: string }, question: string, options: AskOptions<T> | undefined): Promise<T> {
  const { answers } = test;
  const entry = [opened.key, opened.base, question].find((name) => Object.hasOwn(answers, name));
  if (entry === undefined) {
    const error = new Error(`wf.ask(${JSON.stringify(question)}) (key ${opened.key}) has no scripted answer; give one in testWorkflow's answers: { ${JSON.stringify(opened.key)}: ... }`);
    error.name = "TestWorkflowError";
    test.fail(error);
    throw error;
  }
  let value = answers[entry];
  if (typeof value === "function") {
    const asked: AskedQuestion = { key: opened.key, question };
    if (options?.choices !== undefined) asked.choices = options.choices;
    if (options?.context !== undefined) asked.context = options.context;
    value = await (value as (q: AskedQuestion) => unknown)(asked);
  }
  try {
    return ops.ask_scripted({ run, key: opened.key, value }) as T;
  } catch (error) {
    test.fail(error);
    throw error;
  }
}

/** An AwfError the host rejected with, carrying the frames of the author's call. */
function placedAt(error: unknown, site: Error): unknown {
  if (error instanceof AwfError && typeof site.stack === "string") {
    error.stack = `${error.name}: ${error.message}${site.stack.slice(site.stack.indexOf("\n"))}`;
  }
  return error;
}

/** One question of a tested run, as `run.asks` lists them in the order they were asked. */
export interface AskRecord {
  key: string;
  question: string;
  choices?: string[];
  schema?: object;
  context?: unknown;
  /** The stage it was asked in. */
  stage?: string;
  /** The answer it took (absent when it took none). */
  answer?: unknown;
  /** How the answer came: `scripted` in a test. */
  how?: string;
  /** It waited its timeout out. */
  timedOut?: boolean;
}

/** The questions a run's events record, with their answers. */
export function askRecords(events: Record<string, any>[]): AskRecord[] {
  const asks: AskRecord[] = [];
  const byKey = new Map<string, AskRecord>();
  for (const e of events) {
    if (e.event === "asked") {
      const record: AskRecord = { key: e.key, question: e.question };
      if (e.choices !== undefined) record.choices = e.choices;
      if (e.schema !== undefined) record.schema = e.schema;
      if (e.context !== undefined) record.context = e.context;
      if (e.stage !== undefined) record.stage = e.stage;
      asks.push(record);
      byKey.set(e.key, record);
    } else if (e.event === "answered") {
      const record = byKey.get(e.key);
      if (record) {
        record.answer = e.value;
        record.how = e.how;
      }
    } else if (e.event === "ask-timed-out") {
      const record = byKey.get(e.key);
      if (record) record.timedOut = true;
    }
  }
  return asks;
}
