/**
 * REST paths with parameters, written once for both sides: the web calls the route with
 * its values (`FRIEND_ROUTES.unfriend(id)`), the API routes by its `pattern`
 * (`/users/friend/:id`).
 */

/** A path with `:name` parameters, filled in order and URL-encoded. */
export type ParamRoute = ((...values: string[]) => string) & { readonly pattern: string };

export function paramRoute(pattern: `/${string}`): ParamRoute {
  const build = (...values: string[]) => {
    let i = 0;
    return pattern.replace(/:[A-Za-z]+/g, () => encodeURIComponent(values[i++] ?? ''));
  };
  return Object.assign(build, { pattern });
}
