/** axe on a page (or a part of it): no serious or critical violations of WCAG 2.2 AA and best practice. */
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';

/** Fails with the serious and critical violations found in `page` (only in `within`, a selector, when given). */
export async function expectAccessible(page: Page, what: string, within?: string): Promise<void> {
  const builder = new AxeBuilder({ page });
  if (within) builder.include(within);
  const results = await builder
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'])
    .analyze();
  const serious = results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help}\n    ${violation.nodes
          .map((node) => `${node.target.join(' ')}: ${node.failureSummary ?? ''}`)
          .join('\n    ')}`,
    );
  expect(serious, `${what}: serious or critical axe violations`).toEqual([]);
}
