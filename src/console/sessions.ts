// Console sessions: the admin token is shown once, at sign-in, and exchanged for a random session id the browser
// keeps in an HttpOnly cookie. The id and its CSRF token live only in this process's memory, so a restart signs
// everyone out. A session ends after `idleMs` without a request, or at sign-out.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { BoundedMap } from '../limits/index.js'

export interface Session {
  id: string
  /** Sent back by the page in the `x-console-csrf` header on every call that uses the session. */
  csrf: string
  expiresAt: number
}

export interface SessionStore {
  open(now: number): Session
  /** The live session with this id (renewed), or undefined. */
  find(id: string | undefined, now: number): Session | undefined
  close(id: string | undefined): void
}

/** More than a handful of open consoles is unusual; the oldest is dropped past this. */
const maxSessions = 64

export function createSessionStore(idleMs: number): SessionStore {
  const sessions = new BoundedMap<string, Session>(maxSessions)
  return {
    open(now) {
      const session = { id: randomBytes(32).toString('base64url'), csrf: randomBytes(24).toString('base64url'), expiresAt: now + idleMs }
      sessions.set(session.id, session)
      return session
    },
    find(id, now) {
      if (!id) return undefined
      const session = sessions.touch(id)
      if (!session) return undefined
      if (session.expiresAt <= now) {
        sessions.delete(id)
        return undefined
      }
      session.expiresAt = now + idleMs
      return session
    },
    close(id) {
      if (id) sessions.delete(id)
    },
  }
}

/** The CSRF header matches the session's token (compared in constant time). */
export function csrfMatches(session: Session, header: string | undefined): boolean {
  return header !== undefined && sameSecret(header, session.csrf)
}

/** Compares a presented secret with the expected one in constant time (hashing first equalises lengths). */
export function sameSecret(presented: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest()
  return timingSafeEqual(digest(presented), digest(expected))
}

/**
 * Wrong tokens per client address: each one doubles the wait before that address may try again (0.5 s, 1 s, 2 s…
 * up to 30 s), and a right token clears it. The wait is short and per address, so a stranger guessing from
 * elsewhere never locks the real operator out, and guessing a 16+ character token stays hopeless.
 */
export interface SignInBackoff {
  /** Milliseconds this address must still wait before its next try (0 when it may try now). */
  waitMs(address: string, now: number): number
  failed(address: string, now: number): number
  succeeded(address: string): void
}

const firstWaitMs = 500
const longestWaitMs = 30_000

export function createSignInBackoff(): SignInBackoff {
  const failures = new BoundedMap<string, { count: number; until: number }>(4096)
  return {
    waitMs(address, now) {
      const entry = failures.get(address)
      return entry ? Math.max(0, entry.until - now) : 0
    },
    failed(address, now) {
      const count = (failures.get(address)?.count ?? 0) + 1
      const wait = Math.min(longestWaitMs, firstWaitMs * 2 ** (count - 1))
      failures.set(address, { count, until: now + wait })
      return wait
    },
    succeeded(address) {
      failures.delete(address)
    },
  }
}
