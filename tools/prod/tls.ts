/**
 * The certificates of a Temporal frontend that requires mTLS: a CA of its own, the server's certificate (frontend and
 * internode, also the system worker's client certificate, as the server's config template uses it), and a client
 * certificate each for Payrail's processes and for the Temporal UI. A client without a certificate this CA signed is
 * refused at the TLS handshake. Made once into a directory and kept (a restarted server and its clients reuse them).
 *
 * CLI, for docker-compose.yml: `npx tsx tools/prod/tls.ts <dir> [host …]` writes them into <dir> for the server's host
 * names (default: temporal, localhost and 127.0.0.1).
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import path from 'node:path';
import { generate } from 'selfsigned';
import type { TemporalTls } from '../../lib/temporal-connection';

/** The files, by role: PEM certificates and their PKCS#8 keys. */
export interface TemporalCertificates {
  caFile: string;
  server: { certFile: string; keyFile: string };
  /** Payrail's API and worker processes. */
  payrail: { certFile: string; keyFile: string };
  /** The Temporal UI server. */
  ui: { certFile: string; keyFile: string };
}

const YEARS_VALID = 10;
const CERT_OPTIONS = { keyType: 'ec', curve: 'P-256', algorithm: 'sha256' } as const;

const files = (dir: string): TemporalCertificates => ({
  caFile: path.join(dir, 'ca.pem'),
  server: { certFile: path.join(dir, 'server.pem'), keyFile: path.join(dir, 'server-key.pem') },
  payrail: { certFile: path.join(dir, 'payrail.pem'), keyFile: path.join(dir, 'payrail-key.pem') },
  ui: { certFile: path.join(dir, 'ui.pem'), keyFile: path.join(dir, 'ui-key.pem') },
});

const validity = () => {
  const notBeforeDate = new Date(Date.now() - 60_000);
  return { notBeforeDate, notAfterDate: new Date(notBeforeDate.getTime() + YEARS_VALID * 365 * 86_400_000) };
};

/** The CA, the server's certificate for `hosts` and the two client certificates, in `dir`; existing files are kept. */
export async function ensureTemporalCertificates(dir: string, hosts: string[] = ['localhost', '127.0.0.1']): Promise<TemporalCertificates> {
  const made = files(dir);
  if (existsSync(made.ui.keyFile)) return made;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const ca = await generate([{ name: 'commonName', value: 'Payrail Temporal CA' }], {
    ...CERT_OPTIONS,
    ...validity(),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  const signedBy = { key: ca.private, cert: ca.cert };
  const leaf = (commonName: string, extKeyUsage: { serverAuth?: true; clientAuth: true }, altNames: string[]) =>
    generate([{ name: 'commonName', value: commonName }], {
      ...CERT_OPTIONS,
      ...validity(),
      ca: signedBy,
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, critical: true },
        { name: 'extKeyUsage', ...extKeyUsage },
        { name: 'subjectAltName', altNames: altNames.map((name) => (isIP(name) ? { type: 7, ip: name } : { type: 2, value: name })) },
      ],
    });
  const [server, payrail, ui] = await Promise.all([
    leaf(hosts[0]!, { serverAuth: true, clientAuth: true }, hosts),
    leaf('payrail', { clientAuth: true }, ['payrail']),
    leaf('temporal-ui', { clientAuth: true }, ['temporal-ui']),
  ]);
  const write = (file: string, pem: string) => writeFile(file, pem, { mode: 0o600 });
  await write(made.caFile, ca.cert);
  await write(made.server.certFile, server.cert);
  await write(made.server.keyFile, server.private);
  await write(made.payrail.certFile, payrail.cert);
  await write(made.payrail.keyFile, payrail.private);
  await write(made.ui.certFile, ui.cert);
  // Last: its presence says the set is complete.
  await write(made.ui.keyFile, ui.private);
  return made;
}

/** Payrail's client side of the certificates, named as its processes read them (lib/config.ts TEMPORAL_TLS_*). */
export const payrailTls = (certs: TemporalCertificates, serverName: string): TemporalTls => ({
  caFile: certs.caFile,
  certFile: certs.payrail.certFile,
  keyFile: certs.payrail.keyFile,
  serverName,
});

if (require.main === module) {
  const [dir, ...hosts] = process.argv.slice(2);
  if (!dir) {
    console.error('usage: npx tsx tools/prod/tls.ts <dir> [host …]');
    process.exit(2);
  }
  ensureTemporalCertificates(path.resolve(dir), hosts.length > 0 ? hosts : ['temporal', 'localhost', '127.0.0.1']).then(
    (certs) => console.log(`certificates in ${path.dirname(certs.caFile)}: ca.pem, server.pem/server-key.pem, payrail.pem/payrail-key.pem, ui.pem/ui-key.pem`),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
