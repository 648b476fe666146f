//! A list on the screen brought up to date row by row.
//!
//! Setting a new model makes Slint build every row again, and a row that
//! held the keyboard's focus takes it with it: the nearby rooms, a room's
//! seats and the invite list change while a player may be on one of
//! their buttons. Updated in place, the rows stay, and only the rows that
//! changed are drawn again.

use slint::{Model, ModelRc, VecModel};

/// Shows `rows` in the list `shown` (a screen's model, as its adapter's
/// getter gives it): in place when it is a list this function filled,
/// else as a new list given to `set`.
pub(super) fn show<T: Clone + PartialEq + 'static>(
    shown: ModelRc<T>,
    rows: Vec<T>,
    set: impl FnOnce(ModelRc<T>),
) {
    let Some(list) = shown.as_any().downcast_ref::<VecModel<T>>() else {
        set(ModelRc::new(VecModel::from(rows)));
        return;
    };
    let kept = list.row_count().min(rows.len());
    for _ in kept..list.row_count() {
        list.remove(kept);
    }
    for (i, row) in rows.into_iter().enumerate() {
        if i >= kept {
            list.push(row);
        } else if list.row_data(i).as_ref() != Some(&row) {
            list.set_row_data(i, row);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    /// A screen's list property.
    struct Screen(RefCell<ModelRc<i32>>);

    impl Screen {
        fn show(&self, rows: &[i32]) {
            let shown = self.0.borrow().clone();
            show(shown, rows.to_vec(), |new| *self.0.borrow_mut() = new);
        }

        fn rows(&self) -> Vec<i32> {
            self.0.borrow().iter().collect()
        }
    }

    #[test]
    fn the_first_list_is_set_and_later_ones_fill_it_in_place() {
        let screen = Screen(RefCell::new(ModelRc::default()));
        screen.show(&[1, 2, 3]);
        assert_eq!(screen.rows(), [1, 2, 3]);
        let first = screen.0.borrow().clone();
        for rows in [&[1, 5, 3, 4][..], &[7], &[], &[2, 2]] {
            screen.show(rows);
            assert_eq!(screen.rows(), rows);
            assert!(first == *screen.0.borrow(), "the same list");
        }
    }
}
