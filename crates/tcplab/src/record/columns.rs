//! Record tables as named, typed columns, generated from the record structs themselves.
//!
//! A record struct is declared inside [`row_table!`] (one row per flow, link, ...) or
//! [`column_table!`] (a struct of columns, one `Vec` per column); the macro writes the struct
//! as given and its [`Table`] implementation, so a new field becomes a column of the table
//! that bindings (the Python module) hand over without anyone listing it again. A field's
//! type decides its columns ([`Cells`]): a number or text is one column of its name, a
//! [`DropCounts`] one column per drop cause (`<field>_<cause>`), an `Option<f64>` one column
//! with NaN for `None`.

use crate::net::{DropCause, DropCounts};

/// One column of a record table.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    F64(Vec<f64>),
    U32(Vec<u32>),
    U64(Vec<u64>),
    I64(Vec<i64>),
    Bool(Vec<bool>),
    /// Text owned by the record (node and flow names).
    Text(Vec<String>),
    /// Names out of a fixed set the engine knows (event kinds, drop causes, variables).
    Label(Vec<&'static str>),
    /// Pairs of numbers (the measurement window of the run's meta data).
    F64Pair(Vec<[f64; 2]>),
}

/// A table's columns, named and in order.
pub type Columns = Vec<(String, Column)>;

/// A record table that can be handed over column by column.
pub trait Table {
    /// The columns of `rows`, in the order of the struct's fields.
    fn columns(rows: &[Self]) -> Columns
    where
        Self: Sized;
}

/// A struct of columns (`Vec` fields of equal length).
pub trait ColumnTable: Default {
    /// The columns, in the order of the struct's fields.
    fn into_columns(self) -> Columns;
    /// Moves `other`'s rows to the end of these.
    fn append(&mut self, other: &mut Self);
    /// Rows held.
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A field type of a row record: the column or columns it becomes.
pub trait Cells {
    /// Appends the columns of the field `name` holding `values` (one per row).
    fn columns<'a>(name: &str, values: impl Iterator<Item = &'a Self>, out: &mut Columns)
    where
        Self: 'a;
}

macro_rules! copied_cells {
    ($($ty:ty => $variant:ident),+) => {$(
        impl Cells for $ty {
            fn columns<'a>(name: &str, values: impl Iterator<Item = &'a Self>, out: &mut Columns) {
                out.push((name.to_string(), Column::$variant(values.copied().collect())));
            }
        }
        impl From<Vec<$ty>> for Column {
            fn from(v: Vec<$ty>) -> Column {
                Column::$variant(v)
            }
        }
    )+};
}
copied_cells!(f64 => F64, u32 => U32, u64 => U64, i64 => I64, bool => Bool,
    &'static str => Label, [f64; 2] => F64Pair);

impl Cells for String {
    fn columns<'a>(name: &str, values: impl Iterator<Item = &'a Self>, out: &mut Columns) {
        out.push((name.to_string(), Column::Text(values.cloned().collect())));
    }
}

/// A value that may be missing (a transfer's completion time): NaN when it is.
impl Cells for Option<f64> {
    fn columns<'a>(name: &str, values: impl Iterator<Item = &'a Self>, out: &mut Columns) {
        let v = values.map(|x| x.unwrap_or(f64::NAN)).collect();
        out.push((name.to_string(), Column::F64(v)));
    }
}

/// One column per drop cause, `<field>_<cause>`, in [`DropCause::ALL`]'s order.
impl Cells for DropCounts {
    fn columns<'a>(name: &str, values: impl Iterator<Item = &'a Self>, out: &mut Columns) {
        let counts: Vec<&DropCounts> = values.collect();
        for cause in DropCause::ALL {
            let v = counts.iter().map(|c| c.get(cause)).collect();
            out.push((format!("{name}_{}", cause.name()), Column::U64(v)));
        }
    }
}

/// Declares a record struct with one row per thing (flow, link, ...) and its [`Table`]
/// implementation: every field becomes the columns its type gives ([`Cells`]). A field
/// written `pub f: T => g: path,` is followed by a column `g` computed from it by
/// `path(&T)`, which the struct does not hold (the flows' `acks_lost`, the sum of their
/// `ack_drops`).
#[macro_export]
macro_rules! row_table {
    ($(#[$attr:meta])* pub struct $name:ident {
        $($(#[$fattr:meta])* pub $field:ident : $ty:ty $(=> $derived:ident : $derive:path)?,)+
    }) => {
        $(#[$attr])*
        pub struct $name {
            $($(#[$fattr])* pub $field: $ty,)+
        }

        impl $crate::record::columns::Table for $name {
            fn columns(rows: &[Self]) -> $crate::record::columns::Columns {
                let mut out = $crate::record::columns::Columns::new();
                $(
                    <$ty as $crate::record::columns::Cells>::columns(
                        stringify!($field),
                        rows.iter().map(|r| &r.$field),
                        &mut out,
                    );
                    $(
                        let derived: Vec<_> = rows.iter().map(|r| $derive(&r.$field)).collect();
                        $crate::record::columns::Cells::columns(
                            stringify!($derived),
                            derived.iter(),
                            &mut out,
                        );
                    )?
                )+
                out
            }
        }
    };
}

/// Declares a struct of columns (every field a `Vec`, one entry per row) and its
/// [`ColumnTable`] implementation: each field is a column of its name.
#[macro_export]
macro_rules! column_table {
    ($(#[$attr:meta])* pub struct $name:ident {
        $($(#[$fattr:meta])* pub $field:ident : Vec<$ty:ty>,)+
    }) => {
        $(#[$attr])*
        pub struct $name {
            $($(#[$fattr])* pub $field: Vec<$ty>,)+
        }

        impl $crate::record::columns::ColumnTable for $name {
            fn into_columns(self) -> $crate::record::columns::Columns {
                vec![$((stringify!($field).to_string(), self.$field.into()),)+]
            }
            fn append(&mut self, other: &mut Self) {
                $(self.$field.append(&mut other.$field);)+
            }
            fn len(&self) -> usize {
                [$(self.$field.len()),+][0]
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::row_table! {
        #[derive(Default)]
        pub struct Row {
            /// A doc comment stays on the field.
            pub name: String,
            pub done: Option<f64>,
            pub drops: DropCounts => lost: DropCounts::total,
        }
    }

    crate::column_table! {
        #[derive(Default)]
        pub struct Cols {
            pub time: Vec<f64>,
            pub kind: Vec<&'static str>,
        }
    }

    #[test]
    fn row_fields_become_their_columns() {
        let mut drops = DropCounts::default();
        drops.add(DropCause::ALL[0]);
        let rows = [
            Row {
                name: "a".into(),
                done: Some(1.5),
                drops,
            },
            Row::default(),
        ];
        let cols = Row::columns(&rows);
        let names: Vec<&str> = cols.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names.len(), 3 + DropCause::ALL.len());
        assert_eq!(&names[..2], ["name", "done"]);
        assert_eq!(names[2], format!("drops_{}", DropCause::ALL[0].name()));
        assert_eq!(names.last(), Some(&"lost"));
        assert_eq!(cols.last().unwrap().1, Column::U64(vec![1, 0]));
        assert_eq!(cols[0].1, Column::Text(vec!["a".into(), String::new()]));
        match &cols[1].1 {
            Column::F64(v) => assert!(v[0] == 1.5 && v[1].is_nan()),
            other => panic!("{other:?}"),
        }
        assert_eq!(cols[2].1, Column::U64(vec![1, 0]));
    }

    #[test]
    fn column_tables_hand_over_and_append_every_column() {
        let mut a = Cols {
            time: vec![1.0],
            kind: vec!["x"],
        };
        let mut b = Cols {
            time: vec![2.0],
            kind: vec!["y"],
        };
        a.append(&mut b);
        assert!(b.is_empty());
        assert_eq!(a.len(), 2);
        assert_eq!(
            a.into_columns(),
            vec![
                ("time".to_string(), Column::F64(vec![1.0, 2.0])),
                ("kind".to_string(), Column::Label(vec!["x", "y"])),
            ]
        );
    }
}
