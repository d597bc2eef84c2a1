/** Moves focus to the first field, in form order, that has an error; true when there was one. */
export function focusFirstInvalid(
  form: HTMLFormElement,
  order: readonly string[],
  errors: Partial<Record<string, unknown>>,
): boolean {
  const first = order.find((name) => errors[name]);
  if (!first) return false;
  const element = form.elements.namedItem(first);
  if (element instanceof HTMLElement) element.focus();
  return true;
}
