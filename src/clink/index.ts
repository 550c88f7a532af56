export { createClink, type Clink } from './room.js'
export type { ClinkDeps, ClinkPart } from './parts.js'
export {
  clinkOfferKind, clinkDebitKind, clinkManageKind, clinkEnrollKind, clinkKinds,
  type ClinkKind, type ClinkRequest, type ClinkAnswer, type ClinkMessage, type ClinkSender, type ClinkServer,
} from './wire.js'
export { debitNpubLimits } from './debit-budget.js'
