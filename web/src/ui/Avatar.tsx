import './Avatar.css';

interface Props {
  name: string;
  url: string | null;
  size?: number;
}

/** A round picture, or the name's initial on the brand colour when there is none. */
export function Avatar({ name, url, size = 40 }: Props) {
  const style = { width: size, height: size, fontSize: size * 0.42 };
  if (url) return <img className="avatar" src={url} alt="" style={style} />;
  return (
    <span className="avatar avatar--initial" style={style} aria-hidden="true">
      {Array.from(name.trim())[0]?.toUpperCase() ?? '?'}
    </span>
  );
}
