"""Random JSON values (hypothesis) for the tests that feed documents through a grammar."""

from __future__ import annotations

from hypothesis import strategies as st


def json_values(
    *, int_bound: int, text_size: int, key_size: int, container_size: int, max_leaves: int
) -> st.SearchStrategy[object]:
    """Null, booleans, integers within ``±int_bound``, finite floats and short strings, nested in
    lists and objects of at most ``container_size`` items."""
    return st.recursive(
        st.none()
        | st.booleans()
        | st.integers(-int_bound, int_bound)
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(max_size=text_size),
        lambda inner: (
            st.lists(inner, max_size=container_size)
            | st.dictionaries(st.text(max_size=key_size), inner, max_size=container_size)
        ),
        max_leaves=max_leaves,
    )
