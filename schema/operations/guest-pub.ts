// Operations of a relay-network key that has no account yet (upstream's GuestWithPub caller kind): the event's
// pubkey and the addressed app identify the caller, so over HTTP they are refused.
import { operation } from '../operation.js'
import { Empty } from '../messages/common.js'
import { LinkNPubThroughTokenRequest, UseInviteLinkRequest } from '../messages/linking.js'

export const guestPubOperations = [
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
]
