import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname, resolve } from 'node:path';

const REPO_ROOT = resolve(__dirname, '../..');
const LOG_TAIL_CHARS = 8_000;

export interface DevnetProcessOptions {
  /** How errors name it: "solana devnet", "hardhat node for chain 8453". */
  name: string;
  /** Node's arguments (the script and its flags); run by this process's Node, from the repository's root. */
  args: string[];
  env?: NodeJS.ProcessEnv;
  /** Its stdout and stderr are appended here; without it only their tail is kept, for error messages. */
  logFile?: string;
  /** After SIGTERM, how long it may take (saving its state) before SIGKILL. */
  stopTimeoutMs: number;
}

/**
 * A devnet's own process. Its stdin is its lifeline: every devnet server exits when the pipe closes, so it never
 * outlives this process however this one dies (a signal to this process's group no longer reaches it); a clean
 * exit of this process also sends it SIGTERM.
 */
export class DevnetProcess {
  /** Resolves when the process has exited, for whatever reason. */
  readonly exited: Promise<void>;
  private readonly child: ChildProcess;
  private readonly log: WriteStream | undefined;
  private tail = '';
  /** Listeners for whole lines of its stdout, and the line being received. */
  private readonly lineListeners = new Set<(line: string) => void>();
  private partialLine = '';
  private stopping: Promise<void> | undefined;
  /** Synchronous, for the 'exit' handler. */
  readonly kill = (): void => {
    if (this.running) this.child.kill('SIGTERM');
  };

  constructor(private readonly opts: DevnetProcessOptions) {
    if (opts.logFile !== undefined) mkdirSync(dirname(resolve(opts.logFile)), { recursive: true });
    this.log = opts.logFile === undefined ? undefined : createWriteStream(opts.logFile, { flags: 'a' });
    // Its own process group: a Ctrl-C in the terminal reaches the stack, which stops its parts in order (the workers
    // drain while the chains still answer), not every devnet at once.
    this.child = spawn(process.execPath, opts.args, { cwd: REPO_ROOT, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    // EPIPE on the lifeline when the child is already gone must not crash this process.
    this.child.stdin?.on('error', () => undefined);
    const onOutput = (chunk: Buffer): string => {
      const text = chunk.toString('utf8');
      this.log?.write(chunk);
      this.tail = (this.tail + text).slice(-LOG_TAIL_CHARS);
      return text;
    };
    this.child.stdout?.on('data', (chunk: Buffer) => {
      this.partialLine += onOutput(chunk);
      for (let nl = this.partialLine.indexOf('\n'); nl >= 0; nl = this.partialLine.indexOf('\n')) {
        const line = this.partialLine.slice(0, nl);
        this.partialLine = this.partialLine.slice(nl + 1);
        for (const listener of this.lineListeners) listener(line);
      }
    });
    this.child.stderr?.on('data', onOutput);
    this.exited = new Promise((done) => this.child.once('exit', () => done()));
    process.on('exit', this.kill);
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** An error saying `message`, with the tail of its output. */
  failure(message: string): Error {
    return new Error(`${message}\n--- ${this.opts.name} output (tail) ---\n${this.tail}`);
  }

  /**
   * The first line of its stdout that `parse` accepts (its ready line); fails, and stops the process, when it exits
   * or `timeoutMs` passes first.
   */
  async readyLine<T>(parse: (line: string) => T | undefined, timeoutMs: number): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    let listener: ((line: string) => void) | undefined;
    try {
      return await new Promise<T>((ready, fail) => {
        timer = setTimeout(() => fail(this.failure(`${this.opts.name} did not start within ${timeoutMs} ms`)), timeoutMs);
        void this.exited.then(() => fail(this.failure(`${this.opts.name} exited during startup (code ${String(this.child.exitCode)}, signal ${String(this.child.signalCode)})`)));
        listener = (line) => {
          const parsed = parse(line);
          if (parsed !== undefined) ready(parsed);
        };
        this.lineListeners.add(listener);
      });
    } catch (err) {
      await this.stop();
      throw err;
    } finally {
      clearTimeout(timer);
      if (listener) this.lineListeners.delete(listener);
    }
  }

  /** SIGTERM, SIGKILL after the stop timeout; resolves once it has exited. Safe to call more than once. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.kill();
      const timer = setTimeout(() => this.child.kill('SIGKILL'), this.opts.stopTimeoutMs);
      await this.exited;
      clearTimeout(timer);
      process.off('exit', this.kill);
      await new Promise<void>((done) => (this.log === undefined ? done() : this.log.end(done)));
    })();
    return this.stopping;
  }
}

/** `parse` for a ready line that is a JSON object: what `accept` makes of it; any other line is not the ready line. */
export function jsonLine<T>(accept: (value: Record<string, unknown>) => T | undefined): (line: string) => T | undefined {
  return (line) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return undefined;
    }
    return typeof value === 'object' && value !== null ? accept(value as Record<string, unknown>) : undefined;
  };
}
