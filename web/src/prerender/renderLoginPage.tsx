/**
 * The sign-in page as HTML, rendered at build time for each language (build/prerender.ts), so
 * that a visitor on a slow link sees and can type into the form as soon as the page and its
 * stylesheet are in, while the app's code is still on its way (session/prerendered.ts hands what
 * was typed to the app when it starts). The real LoginPage, with the providers it reads given
 * a visitor's values, so the markup is the one React draws.
 */
import { LANGUAGES, type LanguageCode } from '@voice/protocol';
import { createInstance, type ResourceKey } from 'i18next';
import { renderToString } from 'react-dom/server';
import { I18nextProvider } from 'react-i18next';
import { MemoryRouter } from 'react-router-dom';
import { LoginPage } from '../features/auth/LoginPage.tsx';
import { LanguageContext, type LanguageValue } from '../i18n/LanguageContext.ts';
import { PATHS } from '../session/guards.tsx';
import { SessionContext, type SessionValue } from '../session/SessionProvider.tsx';

const nothing = async () => {};

const visitor: SessionValue = {
  status: 'anonymous',
  user: null,
  signIn: () => {},
  signOut: nothing,
  refresh: nothing,
  updateUser: () => {},
  patchUser: () => {},
};

export interface RenderedPage {
  /** The document title the page sets. */
  title: string;
  /** What goes inside #root. */
  markup: string;
}

export async function renderLoginPage(
  language: LanguageCode,
  translations: ResourceKey,
): Promise<RenderedPage> {
  const i18n = createInstance();
  await i18n.init({
    lng: language,
    fallbackLng: false,
    resources: { [language]: { translation: translations } },
    interpolation: { escapeValue: false },
    react: { useSuspense: false },
    showSupportNotice: false,
  });
  const languageValue: LanguageValue = {
    language,
    languages: LANGUAGES,
    changeLanguage: nothing,
    isChanging: false,
    isInitialised: false,
    initialisation: null,
  };
  const html = renderToString(
    <I18nextProvider i18n={i18n}>
      <LanguageContext.Provider value={languageValue}>
        <SessionContext.Provider value={visitor}>
          <MemoryRouter initialEntries={[PATHS.login]}>
            <LoginPage />
          </MemoryRouter>
        </SessionContext.Provider>
      </LanguageContext.Provider>
    </I18nextProvider>,
  );
  // React 19 writes the page's <title> where the page renders it; it belongs in <head>.
  const titleTag = /<title>([^<]*)<\/title>/;
  const title = titleTag.exec(html)?.[1] ?? '';
  return { title, markup: html.replace(titleTag, '') };
}
