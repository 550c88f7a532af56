// The operations the linking room serves: npub linking, admin enrollment, one-time invite links, HTTP credentials
// and messaging tokens for a user's devices, the encryption exchange, and the batched user call.
import { operation } from '../../../schema/operation.js'
import { Empty } from '../../../schema/dsl.js'
import { operator } from '../../../schema/sections.js'
import { EncryptionExchangeRequest } from '../../../schema/messages/common.js'
import { OperatorInvites } from '../../../schema/messages/operator.js'
import { BatchUserRequest, BatchUserResponse, HttpCreds, MessagingToken } from '../../../schema/messages/users.js'
import {
  CreateOneTimeInviteLinkRequest, CreateOneTimeInviteLinkResponse, EnrollAdminTokenRequest,
  GetInviteTokenStateRequest, GetInviteTokenStateResponse, GetNPubLinking, LinkNPubThroughTokenRequest, NPubLinking,
  RequestNPubLinkingTokenRequest, RequestNPubLinkingTokenResponse, UseInviteLinkRequest,
} from './messages/linking.js'

export const linkingOperations = [
  operation({
    name: 'CreateOneTimeInviteLink', area: 'admin', auth: 'admin', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/admin/app/invite/create' },
    input: CreateOneTimeInviteLinkRequest, output: CreateOneTimeInviteLinkResponse,
    summary: "Creates a single-use invite token in the admin's app; `sats` is recorded but not credited on use.",
  }),
  operation({
    name: 'GetInviteLinkState', area: 'admin', auth: 'admin', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/admin/app/invite/get' },
    input: GetInviteTokenStateRequest, output: GetInviteTokenStateResponse,
    summary: 'Whether an invite token has been used.',
  }),
  operation({
    name: 'EncryptionExchange', area: 'guest', auth: 'guest', dialect: 'pub',
    http: { method: 'POST', path: '/api/encryption/exchange' },
    input: EncryptionExchangeRequest, output: Empty,
    summary: 'Accepted and ignored (a vestigial upstream HTTP encryption feature); answers OK.',
  }),
  operation({
    name: 'EnrollAdminToken', area: 'guest', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/guest/npub/enroll/admin' },
    input: EnrollAdminTokenRequest, output: Empty,
    summary: "Makes the caller's relay key the admin key when `admin_token` matches the enrollment file, which is then deleted.",
  }),
  operation({
    name: 'LinkNPubThroughToken', area: 'guest-pub', auth: 'guestPub', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/guest/npub/link' },
    input: LinkNPubThroughTokenRequest, output: Empty,
    summary: "Links the caller's relay key to the app user that was issued this 2-minute linking token.",
  }),
  operation({
    name: 'UseInviteLink', area: 'guest-pub', auth: 'guestPub', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/guest/invite' },
    input: UseInviteLinkRequest, output: Empty,
    summary: "Consumes an unused invite token of the addressed app and creates an app user owned by the caller's relay key.",
  }),
  operation({
    name: 'GetNPubLinkingState', area: 'app', auth: 'app', dialect: 'pub',
    http: { method: 'POST', path: '/api/app/user/npub/state' },
    input: GetNPubLinking, output: NPubLinking,
    summary: 'Whether an app user is unlinked, has a pending linking token, or is linked to an npub.',
  }),
  operation({
    name: 'RequestNPubLinkingToken', area: 'app', auth: 'app', dialect: 'pub',
    http: { method: 'POST', path: '/api/app/user/npub/token' },
    input: RequestNPubLinkingTokenRequest, output: RequestNPubLinkingTokenResponse,
    summary: 'Issues a 2-minute token with which a relay key links itself to this app user; fails if a token is pending or an npub is linked.',
  }),
  operation({
    name: 'ResetNPubLinkingToken', area: 'app', auth: 'app', dialect: 'pub',
    http: { method: 'POST', path: '/api/app/user/npub/token/reset' },
    input: RequestNPubLinkingTokenRequest, output: RequestNPubLinkingTokenResponse,
    summary: 'Like RequestNPubLinkingToken, but also allowed when an npub is already linked (re-linking).',
  }),
  operation({
    name: 'GetHttpCreds', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/http_creds', body: 'none' },
    input: Empty, output: HttpCreds,
    summary: 'The service URL and a user token for HTTP calls, when HTTP upgrade is allowed.',
  }),
  operation({
    name: 'EnrollMessagingToken', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/messaging/enroll' },
    input: MessagingToken, output: Empty,
    summary: "Registers a device's push-messaging token for the user.",
  }),
  operation({
    name: 'BatchUser', area: 'user', auth: 'user', dialect: 'pub', nostr: true, batch: true,
    http: { method: 'POST', path: '/api/user/batch' },
    input: BatchUserRequest, output: BatchUserResponse,
    summary: 'Runs up to 10 non-stream user operations in order in one call, answering one OK or ERROR object per entry.',
  }),
  operation({
    name: 'OperatorListInvites', ...operator,
    http: { method: 'GET', path: '/api/operator/invites', body: 'none' },
    input: Empty, output: OperatorInvites,
    summary: 'Every one-time invite link (CreateOneTimeInviteLink), newest first, with whether and when it was used and by which key.',
  }),
]
