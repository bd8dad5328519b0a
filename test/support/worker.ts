import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { typeScriptEntryArgs } from '../../tools/prod/service';
import type { Stack } from '../../tools/stack/stack';

const REPO_ROOT = path.resolve(__dirname, '../..');

/** A worker in its own process on `taskQueue`, as `npm run worker` runs it; `stdout: 'pipe'` to read its log lines. */
export function spawnWorker(stack: Stack, taskQueue: string, extraEnv: Record<string, string> = {}, stdout: 'inherit' | 'pipe' = 'inherit'): ChildProcess {
  return spawn(process.execPath, typeScriptEntryArgs(path.join(REPO_ROOT, 'workers/main.ts')), {
    cwd: REPO_ROOT,
    env: { ...process.env, ...stack.env, TEMPORAL_TASK_QUEUE: taskQueue, LOG_LEVEL: 'warn', ...extraEnv },
    stdio: ['ignore', stdout, 'inherit'],
  });
}

/** Resolves with the signal (or exit code) the process ended with. */
export const exited = (child: ChildProcess) =>
  new Promise<NodeJS.Signals | number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.signalCode ?? child.exitCode);
    else child.once('exit', (code, signal) => resolve(signal ?? code));
  });
