// A self-signed TLS certificate like the one LND writes at first start (P-256, names localhost and 127.0.0.1),
// made with the machine's openssl at test time so that no key material lives in the repository.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

export interface TlsFiles {
  certPath: string
  keyPath: string
  cert: Buffer
  key: Buffer
}

/** Writes tls.cert and tls.key into `dir`. Throws if openssl is missing: the fake cannot serve TLS without it. */
export function makeTlsCert(dir: string): TlsFiles {
  const certPath = path.join(dir, 'tls.cert')
  const keyPath = path.join(dir, 'tls.key')
  execFileSync(
    'openssl',
    [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-keyout', keyPath, '-out', certPath, '-days', '30', '-subj', '/CN=localhost',
      '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  )
  return { certPath, keyPath, cert: fs.readFileSync(certPath), key: fs.readFileSync(keyPath) }
}
