/**
 * This package's mutant builds (store-contract's mutantBuilder: the package's own source with exact
 * edits, compiled into .builds/<pid>/<name>/), each caught by a test in ../mutants.test.ts or
 * ../budget-processes.test.ts:
 * - `alias-once`: a field written under several aliases is priced once, as a name (the alias attack);
 * - `refund-misread`: the plugin reads the actual cost from a response without its data, so it gives
 *   back the whole estimate but the root fields' minimum (the refund).
 */
import { fileURLToPath } from 'node:url';
import { mutantBuilder } from '@ratekeeper/store-contract';

export const buildMutant = mutantBuilder(fileURLToPath(new URL('../..', import.meta.url)), {
  'alias-once': [
    [
      'cost/estimate.ts',
      '        base += this.field(selection.name.value, selection, type, root);',
      '        if (selectionSet.selections.find((s) => s.kind === Kind.FIELD && s.name.value === selection.name.value) === selection) base += this.field(selection.name.value, selection, type, root);',
    ],
    ['cost/actual.ts', 'const key = selection.alias?.value ?? selection.name.value;', 'const key = selection.name.value;'],
  ],
  'refund-misread': [['envelop.ts', 'const settled = budget.settle(charge, operation, single.data);', 'const settled = budget.settle(charge, operation, undefined);']],
});
