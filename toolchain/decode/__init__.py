"""Decoding under masks: logits → mask → temperature/top-k/top-p → sample."""
