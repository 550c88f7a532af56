// The extensions' operations, for the catalogue (schema/catalogue.ts): each one's contract/operations.ts. One of the
// lists of extensions (docs/architecture.md, "Extensions"); apart from descriptors.ts because the config schema reads
// that one at every command's start, and the operations' messages are much more to load.
import { restaurantOperations } from './restaurant/contract/operations.js'
import { payrollOperations } from './payroll/contract/operations.js'

export const extensionOperations = [...restaurantOperations, ...payrollOperations]
