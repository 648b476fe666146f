//! A list on the screen brought up to date row by row.
//!
//! Setting a new model makes Slint build every row again, and a row that
//! held the keyboard's focus takes it with it: the nearby rooms, a room's
//! seats, the invite list and an online game's Matfyz choices change
//! while a player may be on one of their buttons. Updated in place, the
//! rows stay, and only the rows that changed are drawn again.

use slint::{Model, ModelRc, VecModel};

/// Shows `rows` in the list `shown` (a screen's model, as its adapter's
/// getter gives it): in place when it is a list this function filled,
/// else as a new list given to `set`. `key` names what a row shows (a
/// room's ticket, a player's id; `()` where a row is its place), so that
/// the row a player is on keeps showing the same thing when rows before
/// it come or go.
pub(super) fn show<T: Clone + PartialEq + 'static, K: PartialEq>(
    shown: ModelRc<T>,
    rows: Vec<T>,
    key: impl Fn(&T) -> K,
    set: impl FnOnce(ModelRc<T>),
) {
    let Some(list) = shown.as_any().downcast_ref::<VecModel<T>>() else {
        set(ModelRc::new(VecModel::from(rows)));
        return;
    };
    let count = rows.len();
    for (i, row) in rows.into_iter().enumerate() {
        // The row already showing this one, here or further down: the
        // rows before it are gone (or come again later, as new rows).
        let wanted = key(&row);
        let found = (i..list.row_count())
            .find(|&j| list.row_data(j).is_some_and(|shown| key(&shown) == wanted));
        match found {
            Some(j) => {
                for _ in i..j {
                    list.remove(i);
                }
                if list.row_data(i).as_ref() != Some(&row) {
                    list.set_row_data(i, row);
                }
            }
            None => list.insert(i, row),
        }
    }
    while list.row_count() > count {
        list.remove(count);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    /// A screen's list property, of rows keyed by their first half.
    struct Screen(RefCell<ModelRc<(u8, u8)>>);

    impl Screen {
        fn show(&self, rows: &[(u8, u8)]) {
            let shown = self.0.borrow().clone();
            show(
                shown,
                rows.to_vec(),
                |&(k, _)| k,
                |new| *self.0.borrow_mut() = new,
            );
        }

        fn rows(&self) -> Vec<(u8, u8)> {
            self.0.borrow().iter().collect()
        }
    }

    #[test]
    fn the_first_list_is_set_and_later_ones_fill_it_in_place() {
        let screen = Screen(RefCell::new(ModelRc::default()));
        screen.show(&[(1, 0), (2, 0), (3, 0)]);
        let first = screen.0.borrow().clone();
        for rows in [
            &[(1, 0), (5, 0), (3, 1), (4, 0)][..],
            &[(7, 0)],
            &[],
            &[(2, 0), (2, 1)],
            &[(3, 0), (1, 0), (2, 0)],
        ] {
            screen.show(rows);
            assert_eq!(screen.rows(), rows);
            assert!(first == *screen.0.borrow(), "the same list");
        }
    }
}
