// Types of the native module `awf:ops`: the functions the Rust host gives the built-in modules.
// Only modules under js/ can import it (the loader refuses it from user files). Each op is
// declared once in Rust, under the name it has here: the engine's primitives in
// runtime/src/js/engine/primitives.rs, host APIs in runtime/src/js/host/<name>.rs (beside
// js/host/<name>.ts), the others in runtime/src/js/ops/<path>.rs (beside js/<path>.ts).
// An async op's call gives a `Pending<T>`, its id; `opAsync` (js/core.ts) turns it into the
// promise of its `T`.

declare module "awf:ops" {
  /** The id of an async op in flight, whose value will be a `T`. */
  export type Pending<T> = number & { readonly __pending?: T };

  // The engine's primitives (runtime/src/js/engine/primitives.rs, lazy_builtin.rs).
  /** Registers the functions the host calls into: op completion, timers, requests. */
  export function set_callbacks(callbacks: {
    complete(id: number, ok: boolean, value: unknown): void;
    fire_timer(id: number): void;
    request(kind: string, payload: unknown, replyId: number): void;
  }): void;
  /** Answers a request the host made with `request`. */
  export function reply(replyId: number, ok: boolean, value: unknown): void;
  /** The async context slot (runtime/src/js/engine/async_context.rs). */
  export function context_current(): unknown;
  export function context_resume<T>(context: unknown, result?: T): T;
  export function timer_start(delayMs: number, repeat: boolean): number;
  export function timer_clear(id: number): void;
  export function timer_unref(id: number, unref: boolean): void;
  /**
   * Keeps the modules loaded now, the state of `objects` and the host's store for every later
   * user of the host (runtime/src/js/engine/reuse.rs); false when the host cannot be reused.
   */
  export function keep_for_reuse(objects: readonly object[]): boolean;
  /** Evaluates a built-in now and gives its exports (js/host/lazy_global.ts). */
  export function builtin_namespace(module: string): Record<string, unknown>;
  /** How a promise stands right now, read without waiting (runtime/src/js/engine/ops_module.rs); undefined for a value that is not a promise. */
  export function promise_state(value: unknown): { state: "pending" } | { state: "fulfilled"; value: unknown } | { state: "rejected"; reason: unknown } | undefined;
}

// Host API ops (runtime/src/js/host/<name>.rs, beside js/host/<name>.ts).
declare module "awf:ops" {
  /** Writes text to stdout (1) or stderr (2) without a newline. */
  export function print(fd: 1 | 2, text: string): void;
  /** Maps a JS position of a loaded module to its source position: [line, col] or null. */
  export function source_position(file: string, line: number, col: number): [number, number] | null;

  export function process_info(): { argv: string[]; cwd: string; pid: number; platform: string; arch: string; execPath: string; version: string };
  export function process_env(): { env: Record<string, string>; denied: string[] };
  export function process_exit(code: number): never;
  export function process_chdir(dir: string): void;

  /** A file-system call (js/host/fs.ts builds it), in place; throws Node's errors. */
  export function fs_sync(call: { op: string; [key: string]: unknown }, bytes?: Uint8Array): any;
  /** The same call on the host's blocking pool. */
  export function fs_async(call: { op: string; [key: string]: unknown }, bytes?: Uint8Array): Pending<any>;

  export function child_spawn(request: unknown): { id: number; pid: number };
  export function child_read(stream: { id: number; fd: number }): Pending<Uint8Array | undefined>;
  export function child_write(stream: { id: number }, bytes: Uint8Array): Pending<void>;
  export function child_wait(child: { id: number }): Pending<{ code: number | null; signal: string | null }>;
  export function child_close_stdin(id: number): void;
  export function child_kill(id: number, signal: string): boolean;
  export function child_release(id: number): void;
  export function child_spawn_sync(request: unknown, input?: Uint8Array): unknown;

  export function fetch_send(
    request: { id: number; url: string; method: string; headers: [string, string][]; redirect: string },
    body?: Uint8Array,
  ): Pending<unknown>;
  export function fetch_read(exchange: { id: number }): Pending<Uint8Array | undefined>;
  export function fetch_close(id: number): void;

  export function url_parse(input: string, base?: string): Record<string, string> | null;
  export function url_set(href: string, part: string, value: string): Record<string, string> | null;

  export function utf8_encode(text: string): Uint8Array;
  export function utf8_decode(bytes: Uint8Array, fatal: boolean): string;
  export function bytes_to_text(bytes: Uint8Array, encoding: "base64" | "base64url" | "hex" | "latin1"): string;
  export function text_to_bytes(text: string, encoding: "base64" | "base64url" | "hex" | "latin1"): Uint8Array;

  export function random_bytes(count: number): Uint8Array;
  export function os_info(): Record<string, unknown>;
}

// Ops of the concerns (runtime/src/js/ops/<path>.rs, beside js/<path>.ts).
declare module "awf:ops" {
  // agentswf/workflow
  /** Compiles a JSON Schema once; returns its handle. Throws a TypeError for an invalid schema. */
  export function schema_compile(schema: unknown): number;
  /** Field-level error lines; empty when the value fits. */
  export function schema_check(handle: number, value: unknown): string[];
  /** Reads a value as strict JSON; throws a TypeError naming the path of what is not JSON. */
  export function check_json(value: unknown): unknown;

  // workflow/context
  export function run_info(run: number): unknown;
  export function run_log(run: number, message: string, fields?: Record<string, unknown>): void;

  // workflow/agents
  export function agent_open(run: number, spec: unknown): unknown;
  export function sandbox_open(run: number, spec: unknown): unknown;
  export function run_budget(run: number, figures: unknown, options: unknown): unknown;
  export function agent_run(request: { run: number; agent: string; prompt: unknown; schema: unknown; timeout: unknown; cancel?: string }): Pending<unknown>;
  export function agent_cancel(request: { run: number; agent: string; token: string; reason: string }): boolean;
  export function agent_execution(agent: { run: number; agent: string }): unknown;
  export function agent_close(agent: { run: number; agent: string }): Pending<void>;
  export function agent_stop(stop: { run: number; key: string; reason: string | null }): Pending<boolean>;
  // workflow/ask
  export function ask_open(request: { run: number; question: unknown; choices: unknown; schema: unknown; context: unknown; timeout: unknown; key: unknown; from: string }): unknown;
  export function ask_wait(request: { run: number; key: string; timeoutMs: number | null }): Pending<unknown>;
  export function ask_give_up(request: { run: number; key: string }): boolean;
  export function ask_scripted(request: { run: number; key: string; value: unknown }): unknown;
  // workflow/messages
  export function agent_send(request: { run: number; agent: string; message: unknown; timeout: unknown }): Pending<unknown>;
  export function receive_check(request: { run: number; from: unknown; timeout: unknown }): unknown;
  export function message_received(run: number, seq: number): void;
  export function agent_fork(request: { run: number; agent: string; key: unknown; instructions: unknown; tools: unknown }): Pending<unknown>;
  export function agent_compact(request: { run: number; agent: string; prompt: unknown; timeout: unknown }): Pending<unknown>;
  export function agent_set(request: { run: number; agent: string; settings: unknown }): Pending<unknown>;

  // workflow/stages
  export function stage_enter(args: { run: number; name: unknown }): { reuse: false } | { reuse: true; attempt: number; hasValue: boolean; value?: unknown };
  export function stage_decide(args: { run: number; name: string; problems: string[] }): boolean;
  export function stage_end(args: { run: number; name: string; outcome: "succeeded" | "failed" | "stopped"; value?: unknown; summary?: string; reason?: string }): void;

  // agentswf/testing
  export function test_run_open(options: { name: string; file: string; cwd: string | null; timeoutMs: number; recorded: Record<string, unknown> | null; fromStage: string | null; runtimes: Record<string, Record<string, unknown>> | null }): unknown;
  export function test_run_close(run: { run: number }): Pending<void>;
  export function test_exchange(exchange: { run: number; agent: string; request: object }): Pending<unknown>;
  export function run_events(run: number, from: number): unknown;

  // test/file_runner
  /** `awf test`: one result of the running test file as JSON (runtime/src/testing/event.rs `FileReport`). */
  export function test_event(json: string): void;

  // test/snapshot
  /** `awf test`: the test file's `__snapshots__/<file>.snap`; `text` is null when there is none yet. */
  export function test_snapshot_read(testFile: string): { path: string; text: string | null };
  /** `awf test`: writes the test file's snapshot file whole, atomically (making `__snapshots__`). */
  export function test_snapshot_write(testFile: string, text: string): void;
  /** `awf test`: the test file's text (for its inline snapshots). */
  export function test_source_read(testFile: string): string;
  /** `awf test`: writes the test file whole, atomically, with its inline snapshots written in. */
  export function test_source_write(testFile: string, text: string): void;

  // test/mock (mock.module)
  /** Replaces the module `specifier` names (imported from the file `from`) for later imports, by a stand-in exporting `keys`; gives its id. */
  export function test_mock_module(specifier: string, from: string, keys: string[]): number;
}
