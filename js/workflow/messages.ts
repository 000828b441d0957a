// Messages: `wf.receive` takes what agents sent with `wfa send`, and `agent.send` wakes an agent
// with a message turn. The JS face of runtime/src/messages and runtime/src/agents/message_turn.rs.
//
// The queue is here, one per run: the host hands each message over as it is sent
// ("message.arrived"), in the order agents sent them. A receive takes the first that fits (any
// agent, or `from` one; the others stay queued, in order) or waits for one; `receiveWith` also
// takes an AbortSignal, and a receive given up (aborted, or timed out) takes nothing, so no
// message is lost to a receive that stopped waiting. A message taken is recorded as received
// (`message_received`); the run's end records those never received.

import * as ops from "awf:ops";
import { AwfError, clearTimer, onRequest, UPCALLS, opAsync, startTimer } from "../core.ts";
import { refuseInHandler } from "./identity.ts";
import { currentScope, onScopeCancel } from "./scope.ts";
import { timeoutOption } from "./timeout.ts";
import { CODES } from "../errors.ts";
import { refuseUnknownOptions } from "./options.ts";
import { noteUsage, stageNow, type TurnUsage } from "./usage.ts";

/** The keys `wf.receive` and `agent.send` read in their options (a new option is added here). */
const RECEIVE_OPTIONS = ["from", "timeout"] as const;
const SEND_OPTIONS = ["timeout"] as const;

export interface Message<D = unknown> {
  /** The key of the agent that sent it. */
  from: string;
  text: string;
  /** What `wfa send --json` gave, when it did. */
  data?: D;
  /** When it was sent, RFC 3339. */
  at: string;
}

export interface ReceiveOptions {
  /** Only a message from this agent; messages of others stay queued. */
  from?: string;
  /** `"30s"`, `"5m"` or milliseconds; then the receive rejects with code "receive-timeout". */
  timeout?: string | number;
}

/** How a message turn ended, and what it used (`usage`, as a turn's outcome has it). */
export type MessageOutcome = (
  | { kind: "ended"; ended: true }
  | {
      kind: "failed" | "blocked" | "timed-out" | "cancelled";
      ended: false;
      reason: "failed" | "blocked" | "timed-out" | "cancelled";
      detail: string;
    }
) & { usage: TurnUsage };

interface Queued {
  seq: number;
  message: Message;
}

interface Waiter {
  from: string | null;
  deliver(queued: Queued): void;
}

class Mailbox {
  readonly queue: Queued[] = [];
  readonly waiters: Waiter[] = [];

  arrive(queued: Queued): void {
    const index = this.waiters.findIndex((w) => w.from === null || w.from === queued.message.from);
    if (index < 0) {
      this.queue.push(queued);
      return;
    }
    const [waiter] = this.waiters.splice(index, 1);
    waiter!.deliver(queued);
  }

  take(from: string | null): Queued | undefined {
    const index = this.queue.findIndex((q) => from === null || q.message.from === from);
    return index < 0 ? undefined : this.queue.splice(index, 1)[0];
  }

  forget(waiter: Waiter): void {
    const index = this.waiters.indexOf(waiter);
    if (index >= 0) this.waiters.splice(index, 1);
  }
}

const mailboxes = new Map<string, Mailbox>();

onRequest(UPCALLS.messageArrived, ({ run, message }: { run: string; message: Message & { seq: number } }) => {
  const mailbox = mailboxes.get(run);
  if (!mailbox) throw new Error("this run takes no messages any more");
  const { seq, ...fields } = message;
  mailbox.arrive({ seq, message: fields });
});

/** What `wf` receives with. */
export interface Receiver {
  receive<D = unknown>(options?: ReceiveOptions): Promise<Message<D>>;
  /** `receive` that gives up when `signal` aborts (rejecting with its reason), taking nothing. */
  receiveWith<D = unknown>(options: ReceiveOptions | undefined, signal: AbortSignal | undefined): Promise<Message<D>>;
}

/** Forgets run `runId`'s queue once the run is over (its messages stay unreceived in the records). */
export function closeMailbox(runId: string): void {
  mailboxes.delete(runId);
}

/** The queue of run `runId` (whose ops handle is `run`), and how to receive from it. */
export function createReceiver(run: number, runId: string): Receiver {
  const mailbox = new Mailbox();
  mailboxes.set(runId, mailbox);
  const receiveWith = <D>(options: ReceiveOptions | undefined, signal: AbortSignal | undefined): Promise<Message<D>> => {
    if (options !== undefined && (typeof options !== "object" || options === null)) {
      return Promise.reject(new TypeError("wf.receive(options?): options must be an object such as { from: \"reviewer\", timeout: \"5m\" }"));
    }
    let checked: { from: string | null; timeoutMs: number | null };
    try {
      if (options !== undefined) refuseUnknownOptions("wf.receive(options?)", options, RECEIVE_OPTIONS);
      const timeout = timeoutOption("wf.receive(options?)", options?.timeout);
      checked = ops.receive_check({ run, from: options?.from ?? null, timeout }) as typeof checked;
    } catch (error) {
      return Promise.reject(error);
    }
    if (signal?.aborted) return Promise.reject(signal.reason);
    const taken = (queued: Queued): Message<D> => {
      ops.message_received(run, queued.seq);
      return queued.message as Message<D>;
    };
    const ready = mailbox.take(checked.from);
    if (ready) return Promise.resolve(taken(ready));
    return new Promise<Message<D>>((resolve, reject) => {
      let timer: number | undefined;
      const stop = () => {
        mailbox.forget(waiter);
        if (timer !== undefined) clearTimer(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      const waiter: Waiter = {
        from: checked.from,
        deliver(queued) {
          stop();
          resolve(taken(queued));
        },
      };
      const onAbort = () => {
        stop();
        reject(signal!.reason);
      };
      mailbox.waiters.push(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
      if (checked.timeoutMs !== null) {
        timer = startTimer(
          () => {
            timer = undefined;
            stop();
            reject(timedOut(checked.from, options!.timeout!));
          },
          checked.timeoutMs,
          false,
        );
      }
    });
  };
  return Object.freeze({
    // In a branch of wf.race/wf.select (or an item of wf.parallel) the receive gives up when
    // its scope is cancelled, leaving the message it would have taken queued.
    receive: <D>(options?: ReceiveOptions) => {
      try {
        refuseInHandler("wf.receive");
      } catch (error) {
        return Promise.reject(error);
      }
      if (currentScope() === undefined) return receiveWith<D>(options, undefined);
      const controller = new AbortController();
      const off = onScopeCancel((reason) => controller.abort(new AwfError(CODES.cancelled, `wf.receive was ${String(reason)}`)));
      return receiveWith<D>(options, controller.signal).finally(off);
    },
    receiveWith,
  });
}

function timedOut(from: string | null, timeout: string | number): AwfError {
  const within = typeof timeout === "number" ? `${timeout}ms` : timeout;
  const who = from === null ? "no message came" : `no message from agent "${from}" came`;
  const error = new AwfError(CODES.receiveTimeout, `wf.receive: ${who} within ${within}`) as AwfError & { from?: string; timeout?: string | number; hint?: string };
  if (from !== null) error.from = from;
  error.timeout = timeout;
  error.hint = "give it more time, or check that the agent is opened with messages: true and told to send";
  return error;
}

/** `agent.send(message, options?)`: a message turn for agent `key` of run `run`. */
export function sendTo(run: number, key: string, message: unknown, options?: { timeout?: string | number }): Promise<{ outcome: MessageOutcome }> {
  if (options !== undefined && (typeof options !== "object" || options === null)) {
    return Promise.reject(new TypeError(`agent "${key}": send(message, options?): options must be an object such as { timeout: "5m" }`));
  }
  let pending: ops.Pending<unknown>;
  const stage = stageNow();
  try {
    if (options !== undefined) refuseUnknownOptions(`agent "${key}": send(message, options?)`, options, SEND_OPTIONS);
    const timeout = timeoutOption(`agent "${key}": send(message, options?)`, options?.timeout);
    pending = ops.agent_send({ run, agent: key, message, timeout });
  } catch (error) {
    return Promise.reject(error);
  }
  return opAsync(pending).then((ended) => {
    const outcome = ended as MessageOutcome;
    noteUsage(run, key, stage, outcome.usage);
    return { outcome };
  });
}
