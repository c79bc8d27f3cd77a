//! Error accumulation: every phase reports all it finds, each error on its culprit's span.

use proc_macro2::TokenStream;
use quote::ToTokens;
use std::fmt::Display;

/// The errors found so far; phases push and go on.
#[derive(Default)]
pub struct Errors {
    errors: Vec<syn::Error>,
}

impl Errors {
    /// An error spanning `tokens`.
    pub fn error(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.errors.push(syn::Error::new_spanned(tokens, message));
    }

    /// An error from a syn parser.
    pub fn push(&mut self, error: syn::Error) {
        self.errors.push(error);
    }

    /// How many errors were reported: a phase compares it before and after to tell whether it
    /// found any.
    pub fn len(&self) -> usize {
        self.errors.len()
    }

    /// Whether no error was reported.
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// The errors' messages, in the order they were reported.
    pub fn messages(&self) -> Vec<String> {
        self.errors.iter().map(ToString::to_string).collect()
    }

    /// Whether any error was reported.
    pub fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }

    /// `compile_error!` invocations, one per error, each on its span.
    pub fn to_compile_errors(&self) -> TokenStream {
        self.errors
            .iter()
            .map(syn::Error::to_compile_error)
            .collect()
    }
}
