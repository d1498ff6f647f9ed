//! The page's entry point: the calls, and what they answered, written into `#out`.

use rpcsmith::client::{Client, Error};
use rpcsmith::transport::browser::Fetch;
use wasm_bindgen::prelude::*;

use crate::petstore::types::Kind;
use crate::petstore::{GetPetError, PetstoreClient};

/// Calls the petstore server at `endpoint` and writes each answer into the page's
/// `#out`, one line per call, then `done`; a failure is written as `failed: …`.
#[wasm_bindgen]
pub async fn run(endpoint: String) {
    let lines = match calls(&endpoint).await {
        Ok(mut lines) => {
            lines.push("done".to_owned());
            lines
        }
        Err(error) => vec![format!("failed: {error}")],
    };
    show(&lines.join("\n"));
}

/// The calls, and a line for each answer.
async fn calls(endpoint: &str) -> Result<Vec<String>, Box<dyn std::error::Error>> {
    let pets = PetstoreClient::new(Client::new(Fetch::new(endpoint)));
    let mut lines = Vec::new();
    let rex = pets.add_pet("Rex".into(), Kind::Dog, None).await?;
    lines.push(format!("added {} #{}", rex.name, rex.id));
    let tom = pets
        .add_pet("Tom".into(), Kind::Cat, Some(vec!["grey".into()]))
        .await?;
    lines.push(format!("added {} #{}", tom.name, tom.id));
    let dogs = pets.list_pets(Kind::Dog, None).await?;
    let names: Vec<&str> = dogs.iter().map(|pet| pet.name.as_str()).collect();
    lines.push(format!("dogs: {}", names.join(", ")));
    let again = pets.get_pet(tom.id).await?;
    lines.push(format!("pet #{}: {}", again.id, again.name));
    match pets.get_pet(999).await {
        Err(Error::Declared(GetPetError::PetNotFound(missing))) => {
            lines.push(format!("pet #{}: not found", missing.id));
        }
        other => lines.push(format!("pet #999: unexpected {other:?}")),
    }
    Ok(lines)
}

/// Writes `text` into the page's `#out`.
fn show(text: &str) {
    let out = web_sys::window()
        .and_then(|window| window.document())
        .and_then(|document| document.get_element_by_id("out"));
    if let Some(out) = out {
        out.set_text_content(Some(text));
    }
}
