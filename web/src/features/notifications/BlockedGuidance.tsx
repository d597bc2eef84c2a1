import { useTranslation } from 'react-i18next';
import { browserFamily } from '../../notifications/browserSupport.ts';

const GUIDANCE_KEYS = {
  safari: 'notifications.guidance.safari',
  chrome: 'notifications.guidance.chrome',
  firefox: 'notifications.guidance.firefox',
  other: 'notifications.guidance.other',
} as const;

/** How to unblock notifications in this browser (spec section 9: Safari, Chrome, Firefox, other). */
export function BlockedGuidance() {
  const { t } = useTranslation();
  return <p role="note">{t(GUIDANCE_KEYS[browserFamily(navigator.userAgent)])}</p>;
}
