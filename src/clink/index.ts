export { createClink, type Clink, type ClinkDeps, type ClinkPart } from './room.js'
export { debitNpubLimits } from './debit-budget.js'
