// The extensions' pages in the operator's console (src/console/ui/console.tsx puts them in its navigation): each
// one's console/ folder. One of the lists of extensions (docs/architecture.md, "Extensions"); bundled into the
// console's script by esbuild, never loaded by Node.
import type { NavPage } from '../console/ui/nav-page.js'
import { restaurantConsolePages } from './restaurant/console/index.js'
import { payrollConsolePages } from './payroll/console/index.js'

export const extensionConsolePages: readonly NavPage[] = [...restaurantConsolePages, ...payrollConsolePages]
