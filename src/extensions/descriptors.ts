// The extensions this build holds, as the ground floor reads them: their descriptors (schema/extension.ts). The config
// schema takes each one's section from here and the build bundles each one's pages. One of the lists of extensions,
// the only files outside an extension's folder that name it (docs/architecture.md, "Extensions"); the others are
// operations.ts (the catalogue's), console.ts (the console's pages) and index.ts (what the daemon starts).
import { restaurantDescriptor } from './restaurant/contract/descriptor.js'
import { payrollDescriptor } from './payroll/contract/descriptor.js'

export const extensionDescriptors = [restaurantDescriptor, payrollDescriptor] as const
