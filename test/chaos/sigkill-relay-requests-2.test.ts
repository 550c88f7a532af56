// SIGKILL at random moments under the 'relay-requests' load (load-mixes.ts), part 2 of 3.
import { sigkillSuite } from './sigkill-suite.js'

sigkillSuite('relay-requests', 2, 8)
