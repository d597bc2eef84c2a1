/**
 * SPEC section 2: uncaught route errors show a default error page titled 'Unexpected
 * Application Error!'. This is react-router's own default page, as its data router drew it
 * (the title and the error's message, in English, untranslated: the translations may be what
 * failed), for the routes of AppRoutes and for a signed-in layer that could not load.
 */
import { useEffect } from 'react';

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : JSON.stringify(error);
}

export function ErrorPage({ error }: { error: unknown }) {
  useEffect(() => console.error('Unexpected application error', error), [error]);
  return (
    <>
      <h2>Unexpected Application Error!</h2>
      <h3 style={{ fontStyle: 'italic' }}>{messageOf(error)}</h3>
    </>
  );
}
