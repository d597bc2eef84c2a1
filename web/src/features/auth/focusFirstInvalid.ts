/** Moves focus to the first field, in form order, that has an error. */
export function focusFirstInvalid(
  form: HTMLFormElement,
  order: readonly string[],
  errors: Partial<Record<string, unknown>>,
): void {
  const first = order.find((name) => errors[name]);
  if (!first) return;
  const element = form.elements.namedItem(first);
  if (element instanceof HTMLElement) element.focus();
}
