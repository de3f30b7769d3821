/**
 * Mutant: an object that runs a batch whatever its deadline, so a call its caller had already given
 * up on (and decided by the failure policy) is decided a second time here. The deadline test's check
 * must catch it.
 */
import { type Batch, RateLimiterObject, type Reply } from '../../src/index.js';

export class DeadlineDeafObject extends RateLimiterObject {
  override run(batch: Batch): Reply {
    return super.run({ ...batch, deadline: 0 });
  }
}
