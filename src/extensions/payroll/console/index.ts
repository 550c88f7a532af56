// The payroll extension's page in the operator's console, listed in src/extensions/console.ts.
import type { NavPage } from '../../../console/ui/nav-page.js'
import { Payroll } from './payroll.js'

export const payrollConsolePages: readonly NavPage[] = [['payroll', 'Payroll', Payroll]]
