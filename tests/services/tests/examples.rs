//! The open-rpc examples (petstore, params-by-name petstore, simple-math, link-example):
//! each document's generated client and server against each other over memory and HTTP,
//! every method called, by name and by position as the document says, a batch, a
//! declared error and `rpc.discover`. Left out, with a message, where the corpus is absent.
#![cfg(corpus)]

mod support;

use std::sync::Mutex;

use rpcsmith::client::{Client, Error};
use rpcsmith::server::{Context, Failure, Server};
use serde_json::{Value, json};
use support::connect;

/// The document `client`'s server answers on `rpc.discover`: the one embedded.
async fn discovered(client: &Client) -> Value {
    client.request("rpc.discover", &()).await.unwrap()
}

mod petstore {
    use super::*;
    use rpcsmith_services::petstore::{
        DOCUMENT, ListPetsError, PetstoreClient, PetstoreDispatcher, PetstoreServer, types,
    };

    #[derive(Default)]
    struct Store(Mutex<Vec<types::Pet>>);

    impl PetstoreServer for Store {
        async fn list_pets(
            &self,
            _cx: Context,
            limit: Option<u64>,
        ) -> Result<types::Pets, Failure<ListPetsError>> {
            let pets = self.0.lock().unwrap().clone();
            match limit {
                Some(100) => Err(ListPetsError::PetsBusy.into()),
                Some(n) => Ok(pets.into_iter().take(n as usize).collect()),
                None => Ok(pets),
            }
        }

        async fn create_pet(
            &self,
            _cx: Context,
            name: String,
            tag: Option<String>,
        ) -> Result<u64, Failure> {
            let mut pets = self.0.lock().unwrap();
            let id = pets.len() as u64 + 1;
            pets.push(types::Pet { id, name, tag });
            Ok(id)
        }

        async fn get_pet(&self, _cx: Context, id: u64) -> Result<types::Pet, Failure> {
            let pets = self.0.lock().unwrap();
            pets.iter()
                .find(|p| p.id == id)
                .cloned()
                .ok_or_else(|| rpcsmith::protocol::ErrorObject::new(404, "no such pet").into())
        }
    }

    async fn run(over_http: bool) {
        let server = Server::new(PetstoreDispatcher::new(Store::default()));
        let (inner, _stop) = connect(server, over_http).await;
        let client = PetstoreClient::new(inner.clone());
        assert_eq!(
            client
                .create_pet("Rex".into(), Some("dog".into()))
                .await
                .unwrap(),
            1
        );
        assert_eq!(client.create_pet("Tom".into(), None).await.unwrap(), 2);
        assert_eq!(client.list_pets(None).await.unwrap().len(), 2);
        assert_eq!(client.list_pets(Some(1)).await.unwrap().len(), 1);
        assert!(matches!(
            client.list_pets(Some(100)).await,
            Err(Error::Declared(ListPetsError::PetsBusy))
        ));
        // The document's `minimum: 1`, checked before the handler runs.
        assert!(matches!(
            client.list_pets(Some(0)).await,
            Err(Error::Undeclared(e)) if e.message == "invalid param `limit`: 0 is less than the minimum 1"
        ));
        let rex = client.get_pet(1).await.unwrap();
        assert_eq!(
            (rex.name.as_str(), rex.tag.as_deref()),
            ("Rex", Some("dog"))
        );
        assert!(matches!(client.get_pet(9).await, Err(Error::Undeclared(e)) if e.code == 404));
        let mut batch = client.batch();
        let (tom, all) = (batch.get_pet(2), batch.list_pets(None));
        let mut replies = batch.send().await.unwrap();
        assert_eq!(replies.take(tom).unwrap().name, "Tom");
        assert_eq!(replies.take(all).unwrap().len(), 2);
        // `either`: the server takes both shapes.
        let by_position: types::Pet = inner.request("get_pet", &json!([1])).await.unwrap();
        let by_name: types::Pet = inner
            .request("get_pet", &json!({"petId": 1}))
            .await
            .unwrap();
        assert_eq!(by_position, by_name);
        let document = discovered(&inner).await;
        assert_eq!(document, serde_json::from_str::<Value>(DOCUMENT).unwrap());
        assert_eq!(document["info"]["title"], "Petstore");
    }

    #[tokio::test]
    async fn over_memory() {
        run(false).await;
    }

    #[tokio::test]
    async fn over_http() {
        run(true).await;
    }
}

mod petstore_by_name {
    use super::*;
    use rpcsmith_services::petstore_by_name::{
        PetstoreByNameClient, PetstoreByNameDispatcher, PetstoreByNameServer, types,
    };

    struct Store;

    fn pet(id: i64) -> types::Pet {
        types::Pet {
            id,
            name: format!("pet {id}"),
            tag: None,
        }
    }

    impl PetstoreByNameServer for Store {
        async fn list_pets(
            &self,
            _cx: Context,
            limit: Option<i64>,
        ) -> Result<types::Pets, Failure> {
            Ok((1..=limit.unwrap_or(3)).map(pet).collect())
        }

        async fn create_pet(&self, _cx: Context) -> Result<Option<()>, Failure> {
            Ok(None)
        }

        async fn get_pet(&self, _cx: Context, id: String) -> Result<types::Pets, Failure> {
            Ok(vec![pet(id.parse().map_err(|_| {
                rpcsmith::protocol::ErrorObject::invalid_params("petId")
            })?)])
        }
    }

    async fn run(over_http: bool) {
        let server = Server::new(PetstoreByNameDispatcher::new(Store));
        let (inner, _stop) = connect(server, over_http).await;
        let client = PetstoreByNameClient::new(inner.clone());
        assert_eq!(client.list_pets(Some(2)).await.unwrap().len(), 2);
        assert_eq!(client.list_pets(None).await.unwrap().len(), 3);
        assert_eq!(client.create_pet().await.unwrap(), None);
        assert_eq!(client.get_pet("7".into()).await.unwrap()[0].id, 7);
        // `list_pets` is by name only, `get_pet` by position only.
        let e = inner
            .request::<Value, _>("list_pets", &json!([2]))
            .await
            .unwrap_err();
        assert!(matches!(e, Error::Undeclared(e) if e.code == -32602));
        let e = inner
            .request::<Value, _>("get_pet", &json!({"petId": "7"}))
            .await
            .unwrap_err();
        assert!(matches!(e, Error::Undeclared(e) if e.code == -32602));
        let mut batch = client.batch();
        let (a, b) = (batch.list_pets(Some(1)), batch.get_pet("3".into()));
        let mut replies = batch.send().await.unwrap();
        assert_eq!(replies.take(a).unwrap().len(), 1);
        assert_eq!(replies.take(b).unwrap()[0].id, 3);
        assert_eq!(
            discovered(&inner).await["info"]["title"],
            "Petstore By Name"
        );
    }

    #[tokio::test]
    async fn over_memory() {
        run(false).await;
    }

    #[tokio::test]
    async fn over_http() {
        run(true).await;
    }
}

mod simple_math {
    use super::*;
    use rpcsmith_services::simple_math::{
        SimpleMathClient, SimpleMathDispatcher, SimpleMathServer,
    };

    struct Math;

    impl SimpleMathServer for Math {
        async fn addition(
            &self,
            _cx: Context,
            a: Option<i64>,
            b: Option<i64>,
        ) -> Result<i64, Failure> {
            Ok(a.unwrap_or(0) + b.unwrap_or(0))
        }

        async fn subtraction(
            &self,
            _cx: Context,
            a: Option<i64>,
            b: Option<i64>,
        ) -> Result<i64, Failure> {
            Ok(a.unwrap_or(0) - b.unwrap_or(0))
        }
    }

    async fn run(over_http: bool) {
        let (inner, _stop) = connect(Server::new(SimpleMathDispatcher::new(Math)), over_http).await;
        let client = SimpleMathClient::new(inner.clone());
        assert_eq!(client.addition(Some(2), Some(2)).await.unwrap(), 4);
        assert_eq!(client.subtraction(Some(9), Some(4)).await.unwrap(), 5);
        assert_eq!(client.addition(Some(2), None).await.unwrap(), 2);
        assert_eq!(client.addition(None, None).await.unwrap(), 0);
        let by_position: i64 = inner.request("addition", &json!([4, 4])).await.unwrap();
        assert_eq!(by_position, 8);
        let e = inner
            .request::<i64, _>("addition", &json!(["4"]))
            .await
            .unwrap_err();
        assert!(matches!(e, Error::Undeclared(e) if e.message.contains("`a`")));
        let mut batch = client.batch();
        let (x, y) = (
            batch.addition(Some(1), Some(1)),
            batch.subtraction(Some(1), Some(1)),
        );
        let mut replies = batch.send().await.unwrap();
        assert_eq!((replies.take(x).unwrap(), replies.take(y).unwrap()), (2, 0));
        assert_eq!(
            discovered(&inner).await["methods"].as_array().map(Vec::len),
            Some(2)
        );
    }

    #[tokio::test]
    async fn over_memory() {
        run(false).await;
    }

    #[tokio::test]
    async fn over_http() {
        run(true).await;
    }
}

mod link_example {
    use super::*;
    use rpcsmith_services::link_example::{
        LinkExampleClient, LinkExampleDispatcher, LinkExampleServer, types,
    };

    struct Links;

    fn user(name: &str) -> types::User {
        types::User {
            username: Some(name.to_owned()),
            uuid: None,
        }
    }

    fn repo(owner: &str, slug: &str) -> types::Repository {
        types::Repository {
            slug: Some(slug.to_owned()),
            owner: Some(user(owner)),
        }
    }

    fn pr(owner: &str, slug: &str, id: i64) -> types::Pullrequest {
        types::Pullrequest {
            id: Some(id),
            title: None,
            repository: Some(repo(owner, slug)),
            author: None,
        }
    }

    impl LinkExampleServer for Links {
        async fn get_user_by_name(
            &self,
            _cx: Context,
            username: String,
        ) -> Result<types::User, Failure> {
            Ok(user(&username))
        }

        async fn get_repositories_by_owner(
            &self,
            _cx: Context,
            username: String,
        ) -> Result<Vec<types::Repository>, Failure> {
            Ok(vec![repo(&username, "a"), repo(&username, "b")])
        }

        async fn get_repository(
            &self,
            _cx: Context,
            username: String,
            slug: String,
        ) -> Result<types::Repository, Failure> {
            Ok(repo(&username, &slug))
        }

        async fn get_pull_requests_by_repository(
            &self,
            _cx: Context,
            username: String,
            slug: String,
            state: Option<types::GetPullRequestsByRepositoryState>,
        ) -> Result<Vec<types::Pullrequest>, Failure> {
            let n = if state == Some(types::GetPullRequestsByRepositoryState::Merged) {
                1
            } else {
                2
            };
            Ok((0..n).map(|i| pr(&username, &slug, i)).collect())
        }

        async fn get_pull_requests_by_id(
            &self,
            _cx: Context,
            username: String,
            slug: String,
            pid: String,
        ) -> Result<types::Pullrequest, Failure> {
            Ok(pr(&username, &slug, pid.parse().unwrap_or(0)))
        }

        async fn merge_pull_request(
            &self,
            _cx: Context,
            _username: String,
            _slug: String,
            pid: String,
        ) -> Result<Value, Failure> {
            Ok(json!({ "merged": pid }))
        }
    }

    async fn run(over_http: bool) {
        let (inner, _stop) =
            connect(Server::new(LinkExampleDispatcher::new(Links)), over_http).await;
        let c = LinkExampleClient::new(inner.clone());
        assert_eq!(
            c.get_user_by_name("ada".into())
                .await
                .unwrap()
                .username
                .as_deref(),
            Some("ada")
        );
        assert_eq!(
            c.get_repositories_by_owner("ada".into())
                .await
                .unwrap()
                .len(),
            2
        );
        assert_eq!(
            c.get_repository("ada".into(), "x".into())
                .await
                .unwrap()
                .slug
                .as_deref(),
            Some("x")
        );
        let merged = Some(types::GetPullRequestsByRepositoryState::Merged);
        assert_eq!(
            c.get_pull_requests_by_repository("ada".into(), "x".into(), merged)
                .await
                .unwrap()
                .len(),
            1
        );
        assert_eq!(
            c.get_pull_requests_by_repository("ada".into(), "x".into(), None)
                .await
                .unwrap()
                .len(),
            2
        );
        assert_eq!(
            c.get_pull_requests_by_id("ada".into(), "x".into(), "5".into())
                .await
                .unwrap()
                .id,
            Some(5)
        );
        assert_eq!(
            c.merge_pull_request("ada".into(), "x".into(), "5".into())
                .await
                .unwrap(),
            json!({"merged": "5"})
        );
        let e = inner
            .request::<Value, _>("get_repository", &json!({"username": "ada"}))
            .await
            .unwrap_err();
        assert!(matches!(e, Error::Undeclared(e) if e.message == "missing param `slug`"));
        assert_eq!(discovered(&inner).await["info"]["title"], "Links");
    }

    #[tokio::test]
    async fn over_memory() {
        run(false).await;
    }

    #[tokio::test]
    async fn over_http() {
        run(true).await;
    }
}
