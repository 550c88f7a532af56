// SIGKILL at random moments under the 'extensions' load (load-mixes.ts).
import { sigkillSuite } from './sigkill-suite.js'

sigkillSuite('extensions', 8, 10)
