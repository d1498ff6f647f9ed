//! rpcsmith's first example: `cargo run -p petstore`.
//!
//! `build.rs` generates the `petstore` module from `schemas/petstore.json`: its types, a
//! typed client and a server trait. This program implements the trait, serves it on a
//! loopback HTTP port, and calls every method through the generated client: single
//! calls (params by name, and by position with an optional trailing param left out), a
//! typed batch, a notification, a declared error with typed data, and `rpc.discover`.
//! It prints what happened and exits 0 when every answer is the one expected.

use std::sync::Mutex;
use std::time::Duration;

use rpcsmith::client::{Client, Error};
use rpcsmith::http;
use rpcsmith::server::{Context, Failure, Server};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

rpcsmith::include_api!("petstore");

use petstore::types::{Kind, NotFound, Pet, PetId};
use petstore::{GetPetError, PetstoreClient, PetstoreDispatcher, PetstoreServer};

/// The server side: pets in memory, and a channel that visits (notifications) go to.
struct Store {
    pets: Mutex<Vec<Pet>>,
    visits: mpsc::UnboundedSender<PetId>,
}

impl PetstoreServer for Store {
    async fn add_pet(
        &self,
        _cx: Context,
        name: String,
        kind: Kind,
        tags: Option<Vec<String>>,
    ) -> Result<Pet, Failure> {
        let mut pets = self.pets.lock().unwrap_or_else(|e| e.into_inner());
        let pet = Pet {
            id: pets.len() as PetId + 1,
            name,
            kind,
            tags,
        };
        pets.push(pet.clone());
        Ok(pet)
    }

    async fn list_pets(
        &self,
        _cx: Context,
        kind: Kind,
        limit: Option<u32>,
    ) -> Result<Vec<Pet>, Failure> {
        let pets = self.pets.lock().unwrap_or_else(|e| e.into_inner());
        let limit = limit.map_or(usize::MAX, |n| n as usize);
        Ok(pets
            .iter()
            .filter(|p| p.kind == kind)
            .take(limit)
            .cloned()
            .collect())
    }

    async fn get_pet(&self, _cx: Context, id: PetId) -> Result<Pet, Failure<GetPetError>> {
        let pets = self.pets.lock().unwrap_or_else(|e| e.into_inner());
        match pets.iter().find(|p| p.id == id) {
            Some(pet) => Ok(pet.clone()),
            None => Err(GetPetError::PetNotFound(NotFound { id }).into()),
        }
    }

    async fn pet_visited(&self, _cx: Context, id: PetId) {
        let _ = self.visits.send(id);
    }
}

type Outcome = Result<(), Box<dyn std::error::Error>>;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Outcome {
    let (visits, mut visited) = mpsc::unbounded_channel();
    let store = Store {
        pets: Mutex::new(Vec::new()),
        visits,
    };
    let server = Server::new(PetstoreDispatcher::new(store));
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}", listener.local_addr()?);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(http::serve(listener, http::Service::new(server), async {
        let _ = stopped.await;
    }));
    println!("serving the Petstore API on {url}");

    let client = PetstoreClient::new(Client::new(http::Client::new(&url)?));
    single_calls(&client).await?;
    batch(&client).await?;
    notification(&client, &mut visited).await?;
    declared_error(&client).await?;
    discover(&client).await?;

    let _ = stop.send(());
    serving.await?;
    println!("server stopped: every answer was the expected one");
    Ok(())
}

/// `add_pet` takes its params by name; `list_pets` by position, `limit` optional.
async fn single_calls(client: &PetstoreClient) -> Outcome {
    let rex = client
        .add_pet("Rex".into(), Kind::Dog, Some(vec!["good boy".into()]))
        .await?;
    println!("add_pet(\"Rex\", dog, [\"good boy\"]) -> {rex:?}");
    check(rex.id == 1 && rex.name == "Rex", "Rex gets id 1")?;
    for name in ["Tom", "Felix"] {
        let cat = client.add_pet(name.into(), Kind::Cat, None).await?;
        println!("add_pet({name:?}, cat) -> id {}", cat.id);
    }
    let cats = client.list_pets(Kind::Cat, None).await?;
    println!("list_pets(cat) -> {:?}", names(&cats));
    check(names(&cats) == ["Tom", "Felix"], "two cats")?;
    let first = client.list_pets(Kind::Cat, Some(1)).await?;
    println!("list_pets(cat, 1) -> {:?}", names(&first));
    check(names(&first) == ["Tom"], "one cat when limited to 1")
}

/// Three calls and a notification in one HTTP request; each handle reads its own reply.
async fn batch(client: &PetstoreClient) -> Outcome {
    let mut batch = client.batch();
    let rex = batch.get_pet(1);
    let dogs = batch.list_pets(Kind::Dog, None);
    let birds = batch.list_pets(Kind::Bird, Some(5));
    batch.pet_visited(1)?;
    let mut replies = batch.send().await?;
    let (rex, dogs, birds) = (
        replies.take(rex)?,
        replies.take(dogs)?,
        replies.take(birds)?,
    );
    println!(
        "batch: get_pet(1) -> {}, list_pets(dog) -> {:?}, list_pets(bird, 5) -> {:?}, pet_visited(1)",
        rex.name,
        names(&dogs),
        names(&birds)
    );
    check(
        rex.name == "Rex" && dogs.len() == 1 && birds.is_empty(),
        "the batch's answers",
    )
}

/// A notification has no answer: the server's handler still runs.
async fn notification(
    client: &PetstoreClient,
    visited: &mut mpsc::UnboundedReceiver<PetId>,
) -> Outcome {
    client.pet_visited(2).await?;
    let mut seen = Vec::new();
    while seen.last() != Some(&2) {
        match tokio::time::timeout(Duration::from_secs(5), visited.recv()).await {
            Ok(Some(id)) => seen.push(id),
            _ => return Err("the server never saw the visit of pet 2".into()),
        }
    }
    println!("notification pet_visited(2): sent, no answer; the server saw visits of {seen:?}");
    check(seen == [1, 2], "visits of pets 1 (in the batch) and 2")
}

/// `get_pet` declares `PetNotFound` (code 404) with typed data.
async fn declared_error(client: &PetstoreClient) -> Outcome {
    match client.get_pet(99).await {
        Err(Error::Declared(GetPetError::PetNotFound(NotFound { id }))) => {
            println!("get_pet(99) -> declared error PetNotFound, data {{ id: {id} }}");
            check(id == 99, "the error's data names pet 99")
        }
        other => Err(format!("get_pet(99): expected PetNotFound, got {other:?}").into()),
    }
}

/// The server answers `rpc.discover` with the document it was generated from.
async fn discover(client: &PetstoreClient) -> Outcome {
    let document: serde_json::Value = client.inner().request("rpc.discover", &()).await?;
    let methods = document["methods"].as_array().map_or(0, Vec::len);
    println!(
        "rpc.discover -> {} {} with {methods} methods",
        document["info"]["title"], document["info"]["version"]
    );
    check(methods == 4, "the document's four methods")
}

fn names(pets: &[Pet]) -> Vec<&str> {
    pets.iter().map(|p| p.name.as_str()).collect()
}

fn check(ok: bool, what: &str) -> Outcome {
    if ok {
        Ok(())
    } else {
        Err(format!("wrong answer: {what}").into())
    }
}
