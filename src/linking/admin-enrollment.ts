// Making a relay key the operator: while no admin is enrolled the daemon keeps a
// 64-hex token in <data_dir>/admin.enroll and the connection string `<nprofile>:<token>` in admin.connect (both
// 0600). A wallet connects to the nprofile and sends EnrollAdminToken with the token; its key becomes the admin,
// kept in the database (upstream's admin.npub), and both files are removed.
import fs from 'node:fs'
import path from 'node:path'
import { bytesToHex } from '@noble/hashes/utils.js'
import type { Logger } from 'pino'
import { OperationError, type Clock } from '../bus/index.js'
import type { LinkingStore } from './linking-store.js'
import { sameSecret } from '../auth/index.js'

export const adminEnrollFile = 'admin.enroll'
export const adminConnectFile = 'admin.connect'

const enrollTokenBytes = 32
const hex64 = /^[0-9a-f]{64}$/

export interface AdminEnrollmentDeps {
  store: LinkingStore
  dataDir: string
  clock: Clock
  random(bytes: number): Uint8Array
  log: Logger
}

export async function adminEnrollment({ store, dataDir, clock, random, log }: AdminEnrollmentDeps) {
  // The authenticator asks for the admin key on every admin call over the relay, synchronously: it is read once
  // here and changed only by enroll() below. That holds while one daemon serves the books; a standby must build
  // this room once it has taken over (docs/postgres.md), not while the active one may still enroll an admin.
  let admin = await store.adminPubkey()
  const enrollPath = path.join(dataDir, adminEnrollFile)
  const connectPath = path.join(dataDir, adminConnectFile)

  const currentToken = (): string | undefined => {
    try {
      const token = fs.readFileSync(enrollPath, 'utf8').trim()
      return hex64.test(token) ? token : undefined
    } catch {
      return undefined
    }
  }
  const removeFiles = () => {
    fs.rmSync(enrollPath, { force: true })
    fs.rmSync(connectPath, { force: true })
  }

  return {
    adminPubkey: (): string | undefined => admin,

    /**
     * At start: while no admin is enrolled, (re)writes the enrollment files; a token already on disk is kept so a
     * restart does not invalidate a connection string the operator already copied.
     */
    open(nprofile: string): void {
      if (admin) {
        removeFiles()
        return
      }
      const token = currentToken() ?? bytesToHex(random(enrollTokenBytes))
      fs.writeFileSync(enrollPath, token + '\n', { mode: 0o600 })
      fs.writeFileSync(connectPath, `${nprofile}:${token}\n`, { mode: 0o600 })
      fs.chmodSync(enrollPath, 0o600)
      fs.chmodSync(connectPath, 0o600)
      log.info({ file: connectPath }, 'no admin enrolled: connect a wallet with the connection string in this file')
    },

    /**
     * EnrollAdminToken: the presented token must equal admin.enroll; the caller's key becomes the admin. Of two
     * enrollments with the token at once, the one whose row lands first wins; the other hears enrollment is closed.
     */
    async enroll(pubkey: string | null, presented: string): Promise<void> {
      const token = currentToken()
      if (!token || admin) throw new OperationError('forbidden', 'admin enrollment is closed')
      if (!sameSecret(presented.trim(), token)) throw new OperationError('forbidden', 'invalid admin token')
      if (!pubkey) throw new OperationError('forbidden', 'enroll over the relay: the admin is a relay key')
      if (!(await store.enrollAdmin(pubkey, clock.now()))) throw new OperationError('forbidden', 'admin enrollment is closed')
      admin = pubkey
      removeFiles()
      log.info({ pubkey }, 'admin key enrolled')
    },
  }
}

export type AdminEnrollment = Awaited<ReturnType<typeof adminEnrollment>>
