"""The code-point ranges the default tokenizer reads as CJK (bigrams), shared with its vectorised stream."""

from __future__ import annotations

CJK_RANGES: tuple[tuple[int, int], ...] = (
    (0x3005, 0x3007),  # 々 〆 〇
    (0x3041, 0x309F),  # Hiragana
    (0x30A0, 0x30FF),  # Katakana, incl. the prolonged sound mark ー
    (0x31F0, 0x31FF),  # small Ainu katakana
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xF900, 0xFAFF),  # compatibility ideographs
    (0x20000, 0x3FFFF),  # supplementary-plane ideographs (names such as 𠮷)
)
