import { CheckIcon } from './icons.tsx';

interface Props {
  /** The radio group's name: one per picker. */
  group: string;
  value: string;
  /** What the image shows, for the tooltip and screen readers. */
  label: string;
  src: string | null;
  checked: boolean;
  onSelect(): void;
  loading?: 'lazy';
  onImageError?: () => void;
}

/** One avatar on offer: a radio button that looks like its image, with a check when chosen. */
export function AvatarTile({ group, value, label, src, checked, onSelect, loading, onImageError }: Props) {
  return (
    <label className="avatar-tile" title={label}>
      <input
        type="radio"
        className="visually-hidden"
        name={group}
        value={value}
        checked={checked}
        onChange={onSelect}
      />
      {src && <img src={src} alt="" loading={loading} onError={onImageError} />}
      <span className="visually-hidden">{label}</span>
      <span className="avatar-tile__check" aria-hidden="true">
        <CheckIcon />
      </span>
    </label>
  );
}
