import { execFile, spawn } from 'node:child_process';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildOnce, cacheDir } from './provision/build-once';
import { startThrowawayStack } from './stack/stack';
import { login } from '../test/merchant/helpers';

/**
 * `npm run test:api-fuzz`: Schemathesis against a throwaway stack's live API, every operation of /v1/openapi.json,
 * authenticated as the demo merchant; fails on any 5xx or any response the document does not describe.
 * Schemathesis comes from PyPI, pinned, into a per-user venv (created once, like the Temporal binaries).
 */
const SCHEMATHESIS_VERSION = '4.32.5';
const CONFIG = path.join(__dirname, 'api-fuzz', 'schemathesis.toml');

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: 'inherit', env });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const output = async (cmd: string, args: string[]) => (await promisify(execFile)(cmd, args)).stdout;

async function schemathesis(log: (msg: string) => void): Promise<string> {
  const venv = cacheDir('schemathesis-venv');
  const bin = path.join(venv, 'bin', 'schemathesis');
  // A venv holding another version is upgraded in place to the pinned one.
  const ready = async () => (await output(bin, ['--version']).catch(() => '')).trim().endsWith(` ${SCHEMATHESIS_VERSION}`);
  await buildOnce({
    dir: path.dirname(venv),
    name: `schemathesis-${SCHEMATHESIS_VERSION}`,
    ready,
    log,
    build: async () => {
      if (!(await access(path.join(venv, 'bin', 'pip')).then(() => true, () => false)) && (await run('python3', ['-m', 'venv', venv])) !== 0) throw new Error('python3 -m venv failed (install python3-venv)');
      const pip = path.join(venv, 'bin', 'pip');
      if ((await run(pip, ['install', '--quiet', `schemathesis==${SCHEMATHESIS_VERSION}`])) !== 0) throw new Error('pip install schemathesis failed');
    },
  });
  return bin;
}

async function main(): Promise<void> {
  const log = (msg: string) => process.stderr.write(`[api-fuzz] ${msg}\n`);
  const bin = await schemathesis(log);
  // Schemathesis presents bad credentials to every authenticated operation, all from one address: more failed
  // authentications than a client's allowance, which would answer its later probes 429 instead of the 401 it checks.
  const stack = await startThrowawayStack({ name: 'api-fuzz', blockTimeMs: 1000, env: { LOG_LEVEL: 'warn', RATE_LIMIT_AUTH_FAILURES_PER_IP: '10000' } });
  let status = 1;
  try {
    const { token } = await login(stack.info.merchantApiUrl, stack.info.mailSinkUrl!, stack.info.demoMerchant.developerEmail);
    status = await run(bin, ['--config-file', CONFIG, 'run', `${stack.publicBaseUrl}/v1/openapi.json`, '--workers', '1'], {
      ...process.env,
      PAYRAIL_FUZZ_BASE_URL: stack.publicBaseUrl,
      PAYRAIL_FUZZ_API_KEY: stack.info.demoMerchant.adminKey,
      PAYRAIL_FUZZ_BEARER: token,
    });
  } finally {
    await stack.stop();
  }
  process.exit(status);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
