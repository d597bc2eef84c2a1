/**
 * Keeps `--vh` (1% of the visible viewport height) current, because `100vh` on mobile
 * browsers includes the area behind collapsing toolbars.
 */
export function installViewportHeightVar(): () => void {
  const update = () => {
    document.documentElement.style.setProperty('--vh', `${window.innerHeight * 0.01}px`);
  };
  update();
  window.addEventListener('resize', update);
  window.addEventListener('orientationchange', update);
  return () => {
    window.removeEventListener('resize', update);
    window.removeEventListener('orientationchange', update);
  };
}
