// Accounts for tests, made the way an integrator makes them: AddApp as the operator, AddAppUser as the app, and a
// user token the integrator signs itself with the JWT secret it shares with the daemon (`[auth] jwt_secret`).
import { randomBytes } from 'node:crypto'
import { SignJWT } from 'jose'
import type { TestDaemon } from './daemon.js'

export interface TestAppUser {
  appToken: string
  appId: string
  userToken: string
  userId: string
  identifier: string
}

/** A daemon config that fixes the JWT secret, so tests can sign user tokens. */
export const jwtSecretConfig = (jwtSecret: string) => `[auth]\njwt_secret = "${jwtSecret}"\n`

/** A new app (named uniquely) with one user in it. */
export async function createAppWithUser(
  daemon: TestDaemon,
  opts: { jwtSecret: string; identifier?: string; appName?: string },
): Promise<TestAppUser> {
  const name = opts.appName ?? `test-app-${randomBytes(6).toString('hex')}`
  const added = await daemon.request('POST', '/api/admin/app/add', {
    body: { name, allow_user_creation: false },
    headers: { authorization: daemon.adminToken },
  })
  if (added.json?.status !== 'OK') throw new Error(`AddApp failed: ${added.text}`)
  const appToken: string = added.json.auth_token
  const appId: string = added.json.app.id
  const user = await addAppUser(daemon, { appToken, appId, jwtSecret: opts.jwtSecret, identifier: opts.identifier ?? `user-of-${name}` })
  return { appToken, appId, ...user }
}

/** Another user in an existing app, with its own user token. */
export async function addAppUser(
  daemon: TestDaemon,
  opts: { appToken: string; appId: string; jwtSecret: string; identifier: string },
): Promise<{ userToken: string; userId: string; identifier: string }> {
  const user = await daemon.request('POST', '/api/app/user/add', {
    body: { identifier: opts.identifier, fail_if_exists: true, balance: 0 },
    headers: { authorization: opts.appToken },
  })
  if (user.json?.status !== 'OK') throw new Error(`AddAppUser failed: ${user.text}`)
  const userId: string = user.json.info.userId
  return { userToken: await userToken(opts.jwtSecret, { userId, appId: opts.appId, identifier: opts.identifier }), userId, identifier: opts.identifier }
}

/** The HS256 user token upstream integrators mint: `{user_id, app_id, app_user_id}`. */
export function userToken(jwtSecret: string, user: { userId: string; appId: string; identifier: string }): Promise<string> {
  return new SignJWT({ user_id: user.userId, app_id: user.appId, app_user_id: user.identifier })
    .setProtectedHeader({ alg: 'HS256' })
    .sign(new TextEncoder().encode(jwtSecret))
}
