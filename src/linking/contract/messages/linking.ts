// Linking a relay-network key (npub) to an app user, admin enrollment and one-time invite links.
// Fields: upstream's structs.proto.
import { Empty, bool, int, message, oneof, optional, text } from '../../../../schema/dsl.js'

export const GetNPubLinking = message('GetNPubLinking', {
  user_identifier: text(),
})

export const NPubLinking = message('NPubLinking', {
  state: oneof({ unlinked: Empty, linked_npub: text(), linking_token: text() }),
})

export const RequestNPubLinkingTokenRequest = message('RequestNPubLinkingTokenRequest', {
  user_identifier: text(),
})

export const RequestNPubLinkingTokenResponse = message('RequestNPubLinkingTokenResponse', {
  token: text(), // 64-hex, valid 2 minutes, in memory only
})

export const LinkNPubThroughTokenRequest = message('LinkNPubThroughTokenRequest', {
  token: text(),
})

export const EnrollAdminTokenRequest = message('EnrollAdminTokenRequest', {
  admin_token: text(), // content of <DATA_DIR>/admin.enroll
})

export const CreateOneTimeInviteLinkRequest = message('CreateOneTimeInviteLinkRequest', {
  sats: optional(int()), // stored but not credited on use
})

export const CreateOneTimeInviteLinkResponse = message('CreateOneTimeInviteLinkResponse', {
  invitation_link: text(), // raw 64-hex invite token (not a URL)
})

export const GetInviteTokenStateRequest = message('GetInviteTokenStateRequest', {
  invite_token: text(),
})

export const GetInviteTokenStateResponse = message('GetInviteTokenStateResponse', {
  used: bool(),
})

export const UseInviteLinkRequest = message('UseInviteLinkRequest', {
  invite_token: text(),
})
