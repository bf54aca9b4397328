"""Lesson 2's messages: hints for splitting and merging heads, the module, nn.MultiheadAttention, its figures."""

MESSAGES = {
    "hint_view_without_transpose": {
        "ja": "view だけで (B, H, T, D) にしていませんか。メモリ上では各トークンのベクトルが [ヘッド0 | ヘッド1 | …] の順に並んでいます。まず view(B, T, H, D) で最後の軸をヘッドごとに切り分け、それから transpose(1, 2) で H を T の前に出します。",
        "ko": "view만으로 (B, H, T, D)를 만든 것 같습니다. 메모리에는 각 토큰의 벡터가 [헤드0 | 헤드1 | …] 순서로 놓여 있습니다. 먼저 view(B, T, H, D)로 마지막 축을 헤드별로 자르고, 그다음 transpose(1, 2)로 H를 T 앞으로 옮겨야 합니다.",
    },
    "hint_interleaved": {
        "ja": "各ヘッドが H 成分おきの飛び飛びの成分を拾っています。view(B, T, D, H) のように D と H の順を逆にすると、ヘッド h が成分 h, h+H, h+2H, … を受け持つことになります。view(B, T, H, D) なら、ヘッド h は成分 h·D 〜 (h+1)·D − 1 のひと続きを受け持ちます。",
        "ko": "각 헤드가 H칸씩 건너뛴 성분을 가져가고 있습니다. view(B, T, D, H)처럼 D와 H의 순서를 바꾸면 헤드 h가 h, h+H, h+2H, … 번째 성분을 맡게 됩니다. view(B, T, H, D)로 나누면 헤드 h는 h·D번째부터 (h+1)·D − 1번째까지 이어진 성분을 맡습니다.",
    },
    "hint_heads_order": {
        "ja": "ヘッドの並び順が逆です（flip を使っていませんか）。結合したあとの成分 h·D 〜 (h+1)·D − 1 には、ヘッド h の出力が入ります。",
        "ko": "헤드 순서가 거꾸로입니다(flip을 쓴 것 같습니다). 합친 뒤의 h·D번째부터 (h+1)·D − 1번째 성분에는 헤드 h의 출력이 들어가야 합니다.",
    },
    "hint_merge_without_transpose": {
        "ja": "(B, H, T, D) をそのまま view(B, T, H * D) にしていませんか。先に transpose(1, 2) でヘッドの軸を T の後ろに戻して (B, T, H, D) にしてから、最後の2軸をつなぎます。transpose したテンソルは連続していないので、つなぐには reshape(B, T, H * D)（または contiguous().view(B, T, H * D)）を使います。",
        "ko": "(B, H, T, D)를 그대로 view(B, T, H * D)로 바꾼 것 같습니다. 먼저 transpose(1, 2)로 헤드 축을 T 뒤로 되돌려 (B, T, H, D)를 만든 다음 마지막 두 축을 하나로 합쳐야 합니다. transpose한 텐서는 메모리에서 연속적이지 않으므로, 합칠 때는 reshape(B, T, H * D)(또는 contiguous().view(B, T, H * D))를 씁니다.",
    },
    "hint_not_split": {
        "ja": "重みが (B, T, T) になっています。ヘッドごとに別々のソフトマックスをとるので、重みは (B, H, T, T) のはずです。Q, K, V を split_heads で分けてからスコアを計算してください。",
        "ko": "가중치가 (B, T, T)입니다. 헤드마다 따로 소프트맥스를 하므로 가중치는 (B, H, T, T)여야 합니다. Q, K, V를 split_heads로 나눈 다음 점수를 계산하세요.",
    },
    "hint_head_dim_default": {
        "ja": "head_dim を省略したときは embed_dim // n_head を使ってください（MultiHeadAttention({e}, {h}) なら {want}、いまは {got}）。",
        "ko": "head_dim을 생략하면 embed_dim // n_head를 써야 합니다(MultiHeadAttention({e}, {h})라면 {want}, 지금은 {got}).",
    },
    "hint_no_divisibility_error": {
        "ja": "MultiHeadAttention({e}, {h}) がエラーになりませんでした。割り切れないときは course.resolve_head_dim が ValueError を出します。__init__ に最初からある self.head_dim = course.resolve_head_dim(embed_dim, n_head, head_dim) の行を消したり変えたりしていないか確認してください。",
        "ko": "MultiHeadAttention({e}, {h})에서 오류가 나지 않았습니다. 나누어떨어지지 않으면 course.resolve_head_dim이 ValueError를 냅니다. __init__에 처음부터 들어 있던 self.head_dim = course.resolve_head_dim(embed_dim, n_head, head_dim) 줄을 지우거나 바꾸지 않았는지 확인하세요.",
    },
    "hint_split_size": {
        "ja": "H 成分ずつのかたまりが D 個できています（形状 (B, D, T, H)）。x.split(n_head, dim=-1) は、大きさ n_head のかたまりに切り分けます（n_head 個ではありません）。view(B, T, D, H) も同じ切り方です。n_head 個に分けるには x.chunk(n_head, dim=-1) か x.split(HD // n_head, dim=-1) を使うか、view(B, T, H, D) にしてから transpose(1, 2) します。",
        "ko": "H개 성분씩 묶인 덩어리가 D개 생겼습니다(모양 (B, D, T, H)). x.split(n_head, dim=-1)은 크기가 n_head인 덩어리로 자릅니다(n_head개가 아닙니다). view(B, T, D, H)도 같은 방식으로 자릅니다. n_head개로 나누려면 x.chunk(n_head, dim=-1)이나 x.split(HD // n_head, dim=-1)을 쓰거나, view(B, T, H, D)로 만든 다음 transpose(1, 2)를 하세요.",
    },
    "hint_merge_interleaved": {
        "ja": "(B, T, D, H) の順に並べてからつないでいます（permute(0, 2, 3, 1) など）。これでは、つないだベクトルの中で各ヘッドの成分が H 個おきに飛び飛びに並びます。transpose(1, 2) で (B, T, H, D) にしてからつなぐと、ヘッド h の出力が成分 h·D 〜 (h+1)·D − 1 にひと続きで入ります。",
        "ko": "축을 (B, T, D, H) 순서로 바꾼 다음 이어 붙이고 있습니다(permute(0, 2, 3, 1) 등). 이러면 이어 붙인 벡터 안에서 각 헤드의 성분이 H칸 간격으로 흩어집니다. transpose(1, 2)로 (B, T, H, D)를 만든 다음 이어 붙이면 헤드 h의 출력이 성분 h·D ~ (h+1)·D − 1에 연속으로 들어갑니다.",
    },
    "input_changed": {
        "ja": "{name} を呼んだら、渡した入力 x そのものが書き換わりました。",
        "ko": "{name}을(를) 호출하자 넘긴 입력 x 자체가 바뀌었습니다.",
    },
    "hint_input_in_place": {
        "ja": "名前が _ で終わるメソッド（transpose_ など）は、テンソルをその場で書き換えます。呼び出し元の x まで変わり、勾配を記録する入力ではエラーになります。transpose(1, 2) のように _ のないほうを使うと、新しいテンソルが返り、入力はそのまま残ります。",
        "ko": "이름이 _로 끝나는 메서드(transpose_ 등)는 텐서를 그 자리에서 바꿉니다. 호출한 쪽의 x까지 바뀌고, 기울기를 기록하는 입력에서는 오류가 납니다. transpose(1, 2)처럼 _가 없는 쪽을 쓰면 새 텐서가 반환되고 입력은 그대로 남습니다.",
    },
    "hint_float32_inside": {
        "ja": "float64 の入力なのに、結果が float32 の精度（7桁ほど）でしか合っていません。途中で .float() を呼んだり、dtype= を指定せずに新しいテンソルを作ったりして、float32 で計算した部分があるようです。最後に .to(x.dtype) で戻しても、失われた桁は戻りません。計算はすべて入力と同じデータ型で行ってください。",
        "ko": "float64 입력인데 결과가 float32 정밀도(유효 숫자 7자리 정도)까지만 맞습니다. 도중에 .float()를 호출하거나 dtype=을 지정하지 않고 새 텐서를 만들어서, float32로 계산한 부분이 있는 것 같습니다. 마지막에 .to(x.dtype)로 되돌려도 잃은 자릿수는 돌아오지 않습니다. 계산은 모두 입력과 같은 자료형으로 하세요.",
    },
    "hint_projection_layer": {
        "ja": "{what} を {layer} で射影しています。{what} は {want} で射影します（{what} = split_heads(self.{want}(x), H)）。行をコピーして書き換え忘れていないか確認してください。",
        "ko": "{what}를 {layer}로 투영하고 있습니다. {what}는 {want}로 투영해야 합니다({what} = split_heads(self.{want}(x), H)). 줄을 복사한 뒤 바꾸는 것을 잊지 않았는지 확인하세요.",
    },
    "hint_out_proj_transposed": {
        "ja": "out_proj.weight に W_o.weight を転置してコピーしています。どちらも nn.Linear の weight で、形状は (出力, 入力) なので、.T をつけずにそのままコピーします。",
        "ko": "out_proj.weight에 W_o.weight를 전치해서 복사하고 있습니다. 둘 다 nn.Linear의 weight이고 모양이 (출력, 입력)이므로 .T 없이 그대로 복사합니다.",
    },
    "case_size_one": {"ja": "形状 {sizes} の入力", "ko": "모양이 {sizes}인 입력"},
    "hint_squeeze": {
        "ja": "squeeze() は大きさ 1 の軸をすべて消します。B = 1（1文だけ）や T = 1（1トークンだけ）の入力でも、出力は (B, T, E)、重みは (B, H, T, T) のまま返してください。ここでは squeeze() は要りません。",
        "ko": "squeeze()는 크기가 1인 축을 모두 없앱니다. B = 1(문장 하나)이나 T = 1(토큰 하나)인 입력에서도 출력은 (B, T, E), 가중치는 (B, H, T, T) 모양 그대로 반환하세요. 여기서는 squeeze()가 필요 없습니다.",
    },
    "hint_returns_torch_mha": {
        "ja": "nn.MultiheadAttention を返してください（いまは {kind}）。",
        "ko": "nn.MultiheadAttention을 반환하세요(지금은 {kind}).",
    },
    "hint_split_input": {
        "ja": "split_heads の view が入力の要素数と合いません。split_heads には射影したあとのテンソル（split_heads(self.W_q(x), H) のように、最後の軸が H·D のもの）を渡し、H には self.n_head を使います。",
        "ko": "split_heads의 view가 입력의 원소 수와 맞지 않습니다. split_heads에는 투영한 뒤의 텐서(split_heads(self.W_q(x), H)처럼 마지막 축이 H·D인 것)를 넘기고, H에는 self.n_head를 씁니다.",
    },
    "hint_split_args": {
        "ja": "split_heads の引数の順番が逆になっていませんか。split_heads(テンソル, ヘッドの数) の順に渡します（split_heads(self.W_q(x), H)）。",
        "ko": "split_heads의 인자 순서가 바뀐 것 같습니다. split_heads(텐서, 헤드 수) 순서로 넘깁니다(split_heads(self.W_q(x), H)).",
    },
    "hint_torch_mha_dtype": {
        "ja": "返した nn.MultiheadAttention のパラメータが {got} にあります（mha の重みは {want}）。mha と同じデバイス・データ型にそろえるため、作ったあとで .to(mha.W_q.weight) としてください。そろえないと、mha に渡していた入力を渡したところでエラーになります。",
        "ko": "반환한 nn.MultiheadAttention의 파라미터가 {got}입니다(mha의 가중치는 {want}). mha와 같은 장치·자료형으로 맞추도록, 만든 뒤에 .to(mha.W_q.weight)를 하세요. 맞추지 않으면 mha에 넣던 입력을 넣을 때 오류가 납니다.",
    },
    "hint_torch_mha_setup": {
        "ja": "nn.MultiheadAttention(embed_dim, n_head, bias=False, batch_first=True) として作ってください（{what} が違います）。",
        "ko": "nn.MultiheadAttention(embed_dim, n_head, bias=False, batch_first=True)로 만드세요(다른 것: {what}).",
    },
    "hint_in_proj_order": {
        "ja": "in_proj_weight には W_q, W_k, W_v の weight をこの順に縦に連結（torch.cat(..., dim=0)）して入れます。順番が入れ替わっているようです。",
        "ko": "in_proj_weight에는 W_q, W_k, W_v의 weight를 이 순서대로 세로로 이어 붙여(torch.cat(..., dim=0)) 넣습니다. 순서가 바뀐 것 같습니다.",
    },
    "hint_in_proj_transposed": {
        "ja": "weight は転置せずにそのままコピーします。nn.Linear の weight も in_proj_weight も (出力, 入力) の形状です。",
        "ko": "weight는 전치하지 말고 그대로 복사합니다. nn.Linear의 weight도 in_proj_weight도 (출력, 입력) 모양입니다.",
    },
    "hint_out_proj": {
        "ja": "out_proj.weight に W_o.weight をコピーしたか確認してください。",
        "ko": "out_proj.weight에 W_o.weight를 복사했는지 확인하세요.",
    },
    "hint_head_slice": {
        "ja": "ヘッド i の部分は、W_q, W_k, W_v では weight の行 i·D 〜 (i+1)·D − 1（weight[i*D:(i+1)*D]）、W_o では列 i·D 〜 (i+1)·D − 1（W_o.weight[:, i*D:(i+1)*D]）です。コピー先の Attention(mha.embed_dim, mha.head_dim) の weight の形状は、W_q, W_k, W_v が (D, E)、W_o が (E, D) です。",
        "ko": "헤드 i에 해당하는 부분은 W_q, W_k, W_v에서는 weight의 i·D행부터 (i+1)·D − 1행까지(weight[i*D:(i+1)*D])이고, W_o에서는 같은 범위의 열(W_o.weight[:, i*D:(i+1)*D])입니다. 복사해 넣을 Attention(mha.embed_dim, mha.head_dim)의 weight 모양은 W_q, W_k, W_v가 (D, E), W_o가 (E, D)입니다.",
    },
    "hint_head_returns_attention": {
        "ja": "head_as_single は第1回の Attention モジュール（Attention(embed_dim, head_dim)）を返してください。",
        "ko": "head_as_single은 1강의 Attention 모듈(Attention(embed_dim, head_dim))을 반환해야 합니다.",
    },
    "fig_wide_vs_heads": {
        "ja": "1つの幅広ヘッド（左）と {h} 個のヘッド（右）の重み",
        "ko": "넓은 헤드 하나(왼쪽)와 헤드 {h}개(오른쪽)의 가중치",
    },
    "demo_wide_vs_heads": {
        "ja": "パラメータ数：ヘッド {h} 個 = {a}、幅広のヘッド1つ = {b}。出力の相対差 |y_heads − y_wide| / |y_heads| = {rel:.3f}",
        "ko": "파라미터 수: 헤드 {h}개 = {a}, 넓은 헤드 하나 = {b}. 출력의 상대 차이 |y_heads − y_wide| / |y_heads| = {rel:.3f}",
    },
    "demo_seeds": {
        "ja": "シードを {n} 通り変えたとき（パラメータも入力も毎回作り直します）の相対差：最小 {lo:.3f}、平均 {mean:.3f}、最大 {hi:.3f}",
        "ko": "시드를 {n}가지로 바꿔 가며(파라미터와 입력을 매번 새로 만듭니다) 잰 상대 차이: 최소 {lo:.3f}, 평균 {mean:.3f}, 최대 {hi:.3f}",
    },
    "demo_torch_mha_same": {
        "ja": "出力も重みも nn.MultiheadAttention と一致しました（差は 1e-6 以下）。",
        "ko": "출력과 가중치 모두 nn.MultiheadAttention과 일치합니다(차이 1e-6 이하).",
    },
    "demo_torch_mha_differs": {
        "ja": "出力か重みが nn.MultiheadAttention と一致しません（差が 1e-6 を超えています）。演習 3 の MultiHeadAttention と演習 6 の to_torch_mha のチェックの結果を見直してください。",
        "ko": "nn.MultiheadAttention과 일치하지 않습니다(차이가 1e-6보다 큽니다). 연습 문제 3(MultiHeadAttention)과 연습 문제 6(to_torch_mha)의 검사 결과를 다시 확인하세요.",
    },
    "fig_wide_head": {"ja": "幅 H·D = {w} のヘッド1つ", "ko": "폭 H·D = {w}인 헤드 하나"},
    "hint_head_not_copied": {
        "ja": "新しい Attention の重み行列に、mha の重みが1行も入っていません。作ったときの乱数のままのようです。各層の weight に、mha の重み行列のスライスを copy_ してください。",
        "ko": "새 Attention의 가중치 행렬에 mha의 가중치가 한 행도 들어 있지 않습니다. 만들 때의 난수 그대로인 것 같습니다. 각 층의 weight에 mha 가중치 행렬의 슬라이스를 copy_하세요.",
    },
    "hint_split_transpose_axes": {
        "ja": "transpose で入れ替える軸が違います。view(B, T, H, D) のあとに入れ替えるのは T（軸 1）と H（軸 2）の2つ、つまり transpose(1, 2) です。",
        "ko": "transpose로 바꾸는 축이 다릅니다. view(B, T, H, D) 다음에 서로 바꿀 축은 T(축 1)와 H(축 2) 두 개, 즉 transpose(1, 2)입니다.",
    },
    "hint_split_no_view": {
        "ja": "view が抜けています。transpose の前に view(B, T, H, D) で最後の軸 H·D をヘッドごとに (H, D) に切り分けます。transpose だけでは軸の順番が変わるだけで、ヘッドには分かれません。",
        "ko": "view가 빠졌습니다. transpose 전에 view(B, T, H, D)로 마지막 축 H·D를 헤드별로 (H, D)로 잘라야 합니다. transpose만으로는 축의 순서만 바뀔 뿐 헤드로 나뉘지 않습니다.",
    },
    "hint_merge_transpose_axes": {
        "ja": "transpose で入れ替える軸が違います。(B, H, T, D) を (B, T, H, D) に戻すには、H（軸 1）と T（軸 2）を入れ替える transpose(1, 2) を使います。",
        "ko": "transpose로 바꾸는 축이 다릅니다. (B, H, T, D)를 (B, T, H, D)로 되돌리려면 H(축 1)와 T(축 2)를 바꾸는 transpose(1, 2)를 씁니다.",
    },
    "hint_merge_no_view": {
        "ja": "最後の view が抜けています。transpose(1, 2) で (B, T, H, D) に戻したあと、contiguous().view(B, T, H * D) で最後の2軸を1つにつなげます。",
        "ko": "마지막 view가 빠졌습니다. transpose(1, 2)로 (B, T, H, D)로 되돌린 다음 contiguous().view(B, T, H * D)로 마지막 두 축을 하나로 이어 붙입니다.",
    },
    "hint_view_order": {
        "ja": "view に渡す大きさの順番が違います。view はメモリ上の並びはそのままで形状だけを読み直すので、大きさは元のテンソルの軸の順（B, T, … の順）に渡します。軸を入れ替えるのは transpose の役目です。",
        "ko": "view에 넘기는 크기의 순서가 다릅니다. view는 메모리에 놓인 순서는 그대로 두고 모양만 다시 읽으므로, 크기는 원래 텐서의 축 순서(B, T, … 순)대로 넘깁니다. 축을 서로 바꾸는 것은 transpose가 할 일입니다.",
    },
    "hint_head_count": {
        "ja": "ヘッドの数が違います（H 個ではなく、幅 H のヘッドが D 個あります）。split_heads の2つめの引数には、ヘッドの数 self.n_head（H）を渡します。self.head_dim は1つのヘッドの幅 D です。そう渡しているなら、split_heads（演習 1）が x を n_head 個に分けているか確かめてください。",
        "ko": "헤드 수가 다릅니다(헤드 H개가 아니라 폭이 H인 헤드가 D개 있습니다). split_heads의 두 번째 인자에는 헤드 수 self.n_head(H)를 넘깁니다. self.head_dim은 헤드 하나의 폭 D입니다. 그렇게 넘기고 있다면 split_heads(연습 문제 1)가 x를 n_head개로 나누는지 확인하세요.",
    },
    "hint_torch_mha_args": {
        "ja": "nn.MultiheadAttention の引数は (embed_dim, num_heads) の順です。nn.MultiheadAttention(mha.embed_dim, mha.n_head, bias=False, batch_first=True) のように、埋め込み次元を先に渡してください。",
        "ko": "nn.MultiheadAttention의 인자는 (embed_dim, num_heads) 순서입니다. nn.MultiheadAttention(mha.embed_dim, mha.n_head, bias=False, batch_first=True)처럼 임베딩 차원을 먼저 넘기세요.",
    },
    "hint_w_o_input": {
        "ja": "W_o に渡したテンソルの最後の軸の大きさが H·D ではありません。W_o には、merge_heads(weights @ V) で (B, T, H·D) に戻した出力を渡します。split_heads と merge_heads が正しい形状を返しているかも確かめてください。",
        "ko": "W_o에 넘긴 텐서의 마지막 축 크기가 H·D가 아닙니다. W_o에는 merge_heads(weights @ V)로 (B, T, H·D)로 되돌린 출력을 넘깁니다. split_heads와 merge_heads가 올바른 모양을 반환하는지도 확인하세요.",
    },
    "hint_heads_axes": {
        "ja": "行列積の2つのテンソルで、先頭の2軸 (B, H) がそろっていません。Q, K, V は3つとも split_heads で (B, H, T, D) に分け、K は最後の2軸だけを入れ替えて（K.transpose(-2, -1)）、スコア Q @ Kᵀ と加重平均 weights @ V を (B, H, …) のまま計算します。merge_heads はそのあとです。",
        "ko": "행렬 곱의 두 텐서에서 앞의 두 축 (B, H)가 맞지 않습니다. Q, K, V는 셋 다 split_heads로 (B, H, T, D)로 나누고, K는 마지막 두 축만 바꿔(K.transpose(-2, -1)) 점수 Q @ Kᵀ와 가중 평균 weights @ V를 (B, H, …) 그대로 계산합니다. merge_heads는 그다음입니다.",
    },
    "hint_scores_operand_order": {
        "ja": "重みが (B, H, T, T) ではなく (B, H, D, D) になっていて、次の weights @ V で形状が合いません。スコアの行列積の順番が逆です（K.transpose(-2, -1) @ Q など）。スコアは Q @ K.transpose(-2, -1) で、行がクエリ、列がキーです。",
        "ko": "가중치의 모양이 (B, H, T, T)가 아니라 (B, H, D, D)가 되어 다음 weights @ V에서 모양이 맞지 않습니다. 점수의 행렬 곱 순서가 반대입니다(K.transpose(-2, -1) @ Q 등). 점수는 Q @ K.transpose(-2, -1)이고, 행이 쿼리, 열이 키입니다.",
    },
    "hint_torch_mha_copy_shape": {
        "ja": "copy_ のコピー先とコピー元の形状が合いません。in_proj_weight は (3E, E) なので、W_q, W_k, W_v の weight（どれも (E, E)）を torch.cat(..., dim=0) で縦に連結して入れ、out_proj.weight (E, E) には W_o.weight をそのまま入れます。nn.MultiheadAttention を (embed_dim, num_heads) の順で作ったかも確かめてください。",
        "ko": "copy_의 대상과 원본의 모양이 맞지 않습니다. in_proj_weight는 (3E, E)이므로 W_q, W_k, W_v의 weight(모두 (E, E))를 torch.cat(..., dim=0)으로 세로로 이어 붙여 넣고, out_proj.weight (E, E)에는 W_o.weight를 그대로 넣습니다. nn.MultiheadAttention을 (embed_dim, num_heads) 순서로 만들었는지도 확인하세요.",
    },
    "hint_weights_averaged": {
        "ja": "重みがヘッドについて平均されています（weights.mean(dim=1) など）。ヘッドごとの重みを見られるように、forward は重みを平均せずに (B, H, T, T) のまま返します。",
        "ko": "가중치를 헤드 축으로 평균 냈습니다(weights.mean(dim=1) 등). 헤드별 가중치를 볼 수 있도록 forward는 가중치를 평균하지 않고 (B, H, T, T) 모양 그대로 반환해야 합니다.",
    },
    "hint_weights_one_head": {
        "ja": "1つのヘッドの重み（weights[:, 0] など）だけを返しています。forward は全ヘッドの重みを (B, H, T, T) のまま返します。",
        "ko": "헤드 하나의 가중치(weights[:, 0] 등)만 반환하고 있습니다. forward는 모든 헤드의 가중치를 (B, H, T, T) 모양 그대로 반환해야 합니다.",
    },
    "hint_weights_dropout": {
        "ja": "重みにドロップアウトがかかっています。いくつかの重みが 0 になり、残りは 1/(1 − p) 倍になっています。この回の MultiHeadAttention にドロップアウトはありません（ドロップアウトは第3回で扱います）。torch.dropout、F.dropout、nn.Dropout を外してください。",
        "ko": "가중치에 드롭아웃이 적용되어 있습니다. 일부 가중치가 0이 되고 나머지는 1/(1 − p)배가 되었습니다. 이번 강의 MultiHeadAttention에는 드롭아웃이 없습니다(드롭아웃은 3강에서 다룹니다). torch.dropout, F.dropout, nn.Dropout을 빼세요.",
    },
    "hint_no_scale_d": {
        "ja": "スケーリングを忘れているようです。スコア Q @ K.transpose(-2, -1) を、1つのヘッドの幅 D（self.head_dim）の平方根 √D で割ってください。割らないとスコアの分散が D 倍になり、D が大きいときにソフトマックスが飽和します。",
        "ko": "스케일링을 빠뜨린 것 같습니다. 점수(Q @ K.transpose(-2, -1))를 헤드 하나의 폭 D(self.head_dim)의 제곱근 √D로 나누세요. 나누지 않으면 점수의 분산이 D배가 되어, D가 클 때 소프트맥스가 포화합니다.",
    },
    "hint_scale_by_d": {
        "ja": "D（self.head_dim）そのもので割っていませんか。割るのは √D です（math.sqrt(self.head_dim) または self.head_dim ** 0.5）。D で割ると、スコアの分散は 1 ではなく 1/D まで縮みます。",
        "ko": "D(self.head_dim) 자체로 나눈 것 같습니다. 나눠야 하는 값은 √D입니다(math.sqrt(self.head_dim) 또는 self.head_dim ** 0.5). D로 나누면 점수의 분산이 1이 아니라 1/D로 줄어듭니다.",
    },
    "hint_scale_d_mul": {
        "ja": "√D を掛けていませんか。スコアは √D（math.sqrt(self.head_dim)）で割ります。",
        "ko": "√D를 곱한 것 같습니다. 점수에 √D를 곱하지 말고 √D(math.sqrt(self.head_dim))로 나누세요.",
    },
    "hint_scale_d_floor": {
        "ja": "スコアを // で割っていませんか。// は切り捨ての割り算で、スコアが整数に丸められます。/ で割ります（Q @ K.transpose(-2, -1) / math.sqrt(self.head_dim)）。",
        "ko": "점수를 //로 나눈 것 같습니다. //는 몫을 내림하는 나눗셈이라 점수가 정수 값으로 내림됩니다. /로 나누세요(Q @ K.transpose(-2, -1) / math.sqrt(self.head_dim)).",
    },
    "hint_scale_d_inverted": {
        "ja": "√D をスコアで割っていませんか。割られるのはスコアのほうです（Q @ K.transpose(-2, -1) / math.sqrt(self.head_dim)）。",
        "ko": "√D를 점수로 나눈 것 같습니다. 반대로 점수를 √D로 나누세요(Q @ K.transpose(-2, -1) / math.sqrt(self.head_dim)).",
    },
    "hint_scale_after_softmax": {
        "ja": "ソフトマックスのあとで √D で割っていませんか。そうすると各行の和が 1/√D になります。√D で割るのはソフトマックスの前のスコアです（torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(self.head_dim), dim=-1)）。",
        "ko": "소프트맥스를 적용한 뒤에 √D로 나눈 것 같습니다. 그러면 각 행의 합이 1/√D가 됩니다. √D로 나누는 것은 소프트맥스 전의 점수입니다(torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(self.head_dim), dim=-1)).",
    },
    "hint_weight_not_transposed": {
        "ja": "層の重み行列 weight を、転置せずに @ で掛けていませんか（y @ self.W_o.weight など）。nn.Linear の weight は (出力, 入力) の形状です。層は self.W_o(y) のように呼び出して使います（y @ self.W_o.weight.T と同じ計算です）。",
        "ko": "층의 가중치 행렬 weight를 전치하지 않고 @로 곱한 것 같습니다(y @ self.W_o.weight 등). nn.Linear의 weight는 (출력, 입력) 모양입니다. 층은 self.W_o(y)처럼 호출해서 쓰세요(y @ self.W_o.weight.T와 같은 계산입니다).",
    },
    "hint_scale_by_heads": {
        "ja": "ヘッドの数 H（self.n_head）の平方根で割っていませんか。割るのは1つのヘッドの幅 D（self.head_dim）の平方根 √D です。",
        "ko": "헤드 수 H(self.n_head)의 제곱근으로 나눈 것 같습니다. 나눠야 하는 값은 헤드 하나의 폭 D(self.head_dim)의 제곱근 √D입니다.",
    },
    "hint_head_dtype": {
        "ja": "新しい Attention の重み行列のデータ型 / デバイスが {got} です（mha の重み行列は {want}）。データ型が違うと、コピーした値がそのデータ型の精度に丸められます。雛形の single = Attention(mha.embed_dim, D).to(mha.W_q.weight) の行のとおり、.to(mha.W_q.weight) で mha と同じデバイス・データ型にそろえてからコピーしてください。",
        "ko": "새 Attention 가중치 행렬의 자료형과 장치가 {got}입니다(mha의 가중치는 {want}). 자료형이 다르면 복사한 값이 그 자료형의 정밀도로 반올림됩니다. 미리 주어진 single = Attention(mha.embed_dim, D).to(mha.W_q.weight) 줄처럼, .to(mha.W_q.weight)로 mha와 같은 장치와 자료형으로 맞춘 다음 복사하세요.",
    },
    "hint_head_layer_not_copied": {
        "ja": "新しい Attention の {layer} に、mha の {layer} の重み行列が入っていません。作ったときの乱数のままのようです。{layer}.weight にも、mha の {layer}.weight のうちヘッド i の部分を copy_ してください（W_q, W_k, W_v, W_o の4つともコピーします）。",
        "ko": "새 Attention의 {layer}에 mha의 {layer} 가중치가 들어 있지 않습니다. 만들 때의 난수 그대로인 것 같습니다. {layer}.weight에도 mha.{layer}.weight에서 헤드 i에 해당하는 부분을 copy_로 복사하세요(W_q, W_k, W_v, W_o 네 개 모두 복사합니다).",
    },
    "hint_head_layer_other": {
        "ja": "新しい Attention の {layer} に、mha の {other} の重み行列が入っています。{layer}.weight には、mha の {layer}.weight のうちヘッド i の部分をコピーします。",
        "ko": "새 Attention의 {layer}에 mha의 {other} 가중치가 들어 있습니다. {layer}.weight에는 mha.{layer}.weight에서 헤드 i에 해당하는 부분을 복사하세요.",
    },
    "hint_torch_mha_dropout": {
        "ja": "返した nn.MultiheadAttention に dropout={p} が指定されています。train モードでは呼ぶたびに重みの一部がランダムに 0 になるので、mha と同じ出力になりません。本文のとおり、dropout は指定せずに（既定値の 0 のまま）作ってください。",
        "ko": "반환한 nn.MultiheadAttention에 dropout={p} 설정이 들어 있습니다. 학습 모드에서는 호출할 때마다 가중치 일부가 무작위로 0이 되므로 mha와 같은 출력이 나오지 않습니다. 본문대로 dropout 없이(기본값 0 그대로) 만드세요.",
    },
    "hint_in_proj_block": {
        "ja": "in_proj_weight の行 {lo} 〜 {hi} に、mha の {layer}.weight が入っていません。in_proj_weight には、W_q, W_k, W_v の3つの weight をこの順に縦に連結して（torch.cat([...], dim=0)）コピーします。",
        "ko": "in_proj_weight의 {lo}~{hi}행({layer} 자리)에 mha의 가중치가 들어 있지 않습니다. in_proj_weight에는 mha.W_q.weight, mha.W_k.weight, mha.W_v.weight를 이 순서대로 세로로 이어 붙여(torch.cat([...], dim=0)) 복사하세요.",
    },
    "hint_split_permute": {
        "ja": "軸の並びが {order} になっています（permute に渡す順番の間違いなど）。split_heads が返すべきなのは (B, H, T, D) です。view(B, T, H, D) のあとで入れ替えるのは T と H の2つの軸だけなので、transpose(1, 2)（permute なら permute(0, 2, 1, 3)）を使います。",
        "ko": "축 순서가 {order}가 되었습니다(permute에 넘긴 순서가 다른 경우 등). split_heads가 반환해야 하는 것은 (B, H, T, D)입니다. view(B, T, H, D) 다음에는 T와 H 두 축만 맞바꾸면 됩니다. 즉 transpose(1, 2)(permute라면 permute(0, 2, 1, 3))입니다.",
    },
    "hint_split_mixes_batch": {
        "ja": "バッチの軸とヘッドの軸が混ざっています。B と T を1つにまとめた (B·T, H, D) を transpose すると (H, B·T, D) になります。この形状の順に要素を読むと H, B, T の順に並び、reshape(B, H, T, D) はその順のまま区切り直すだけなので、文（バッチ）とヘッドが混ざって読まれます。view(B, T, H, D) で最後の軸だけを切り分け、transpose(1, 2) で H を T の前に出してください。",
        "ko": "배치 축과 헤드 축이 섞였습니다. B와 T를 하나로 합친 (B·T, H, D)를 transpose하면 (H, B·T, D)가 됩니다. 이 모양대로 원소를 앞에서부터 읽으면 H, B, T 순서가 되고, reshape(B, H, T, D)는 이 순서를 그대로 다시 나누기만 하므로 문장(배치)과 헤드가 뒤섞여 읽힙니다. view(B, T, H, D)로 마지막 축만 나눈 다음 transpose(1, 2)로 H를 T 앞으로 옮기세요.",
    },
    "hint_merge_cat_axis": {
        "ja": "ヘッドを軸 {dim} でつないでいます（torch.cat(..., dim={dim}) など）。それでは軸 {dim} の長さが H 倍になります。各ヘッドの出力 x[:, h]（形状 (B, T, D)）は、最後の軸でつなぎます（torch.cat([...], dim=-1)）。そうすると (B, T, H·D) になり、ヘッド h の出力が成分 h·D 〜 (h+1)·D − 1 に入ります。",
        "ko": "헤드를 축 {dim} 방향으로 이어 붙이고 있습니다(torch.cat(..., dim={dim}) 등). 그러면 축 {dim}의 길이가 H배가 됩니다. 각 헤드의 출력 x[:, h](모양 (B, T, D))는 마지막 축 방향으로 이어 붙입니다(torch.cat([...], dim=-1)). 그래야 (B, T, H·D)가 되고, 헤드 h의 출력이 h·D번째부터 (h+1)·D − 1번째 성분에 들어갑니다.",
    },
    "hint_head_dim_from_e": {
        "ja": "1つのヘッドの幅を embed_dim // n_head で求めていませんか。この回の MultiHeadAttention には head_dim が引数で渡されるので、E = H·D とは限りません（E < H なら E // H は 0 で、0 で割ることになります）。層の出力の幅（H·D）にもスケーリングの √D にも、__init__ で決まる self.head_dim を使ってください。",
        "ko": "헤드 하나의 폭을 embed_dim // n_head로 구하지 않았나요? 이번 MultiHeadAttention은 head_dim을 인자로 받으므로 E = H·D라는 보장이 없습니다(E < H이면 E // H가 0이 되어 0으로 나누게 됩니다). 층의 출력 크기(H·D)에도, 스케일링의 √D에도 __init__에서 정해지는 self.head_dim을 쓰세요.",
    },
    "hint_no_scale_or_width_from_e": {
        "ja": "スコアがスケーリングされていません（1 で割ったのと同じ結果です）。スケーリングを忘れたか、embed_dim // n_head（ここでは 1）の平方根で割っていませんか。head_dim が与えられているので E = H·D とは限りません。スコアは1つのヘッドの幅 D（self.head_dim）の平方根 √D で割ります。",
        "ko": "점수를 어떤 값으로도 나누지 않았습니다(1로 나눈 것과 같습니다). 스케일링을 빠뜨렸거나, embed_dim // n_head(여기서는 1)의 제곱근으로 나누지 않았나요? head_dim이 주어지므로 E = H·D라는 보장이 없습니다. 점수는 헤드 하나의 폭 D(self.head_dim)의 제곱근 √D로 나눕니다.",
    },
    "hint_mha_weights_nan": {
        "ja": "重みに NaN（非数）があります。NaN は 0 / 0 や inf − inf から生まれます。スコアを √0 = 0 で割ると ±inf になり、ソフトマックスの中で inf − inf が起きて、行全体が NaN になります。スコアを割っている数（√D、D = self.head_dim）が 0 になっていないか確かめてください。",
        "ko": "가중치에 NaN(Not a Number)이 있습니다. NaN은 0 / 0이나 inf − inf에서 생깁니다. 점수를 √0 = 0으로 나누면 점수가 ±inf가 되고, 소프트맥스 안에서 inf − inf가 일어나 행 전체가 NaN이 됩니다. 점수를 나누는 값(√D, D = self.head_dim)이 0이 되지 않았는지 확인하세요.",
    },
    "hint_scores_transposed": {
        "ja": "スコアが転置されています（K @ Q.transpose(-2, -1) など）。これでは行がキー、列がクエリになり、ソフトマックスが別の向きに正規化されます。スコアは Q @ K.transpose(-2, -1) で、行がクエリ、列がキーです。",
        "ko": "점수가 전치되었습니다(K @ Q.transpose(-2, -1) 등). 이러면 행이 키, 열이 쿼리가 되어 소프트맥스가 다른 방향으로 정규화됩니다. 점수는 Q @ K.transpose(-2, -1)이고, 행이 쿼리, 열이 키입니다.",
    },
    "hint_layers_shared": {
        "ja": "self.{a} と self.{b} が同じ1つの層になっています。self.{a} = self.{b} = nn.Linear(...) のように1行で代入すると、nn.Linear は1つしか作られず、2つの名前がそれを指します（パラメータの一覧にも1つしか出ません）。層ごとに nn.Linear(...) を別々に作ってください。",
        "ko": "self.{a}와 self.{b}가 같은 층 하나를 함께 가리키고 있습니다. self.{a} = self.{b} = nn.Linear(...)처럼 한 줄로 대입하면 nn.Linear는 하나만 만들어지고 두 이름이 그 하나를 가리킵니다(파라미터 목록에도 하나만 나옵니다). 층마다 nn.Linear(...)를 따로 만드세요.",
    },
    "hint_n_params_no_w_o": {
        "ja": "W_q, W_k, W_v の3つだけを数えていませんか。出力射影 W_o（H·D → E）も重み行列を持つ nn.Linear で、4つ目として数えます。",
        "ko": "W_q, W_k, W_v 세 개만 센 것 같습니다. 출력 투영 W_o(H·D → E)도 가중치 행렬이 있는 nn.Linear이므로 네 번째로 세어야 합니다.",
    },
    "hint_n_params_bias": {
        "ja": "バイアスまで数えていませんか。この回の4つの nn.Linear はどれも bias=False で、パラメータは weight だけです。",
        "ko": "편향까지 센 것 같습니다. 이번 강의 nn.Linear 네 개는 모두 bias=False라서 파라미터는 weight뿐입니다.",
    },
    "hint_n_params_one_head": {
        "ja": "1つのヘッドの幅 D で数えていませんか。W_q, W_k, W_v はそれぞれ、全ヘッド分をまとめた1つの層で、出力の幅は D ではなく H·D です（W_o の入力も H·D です）。",
        "ko": "헤드 하나의 폭 D로 센 것 같습니다. W_q, W_k, W_v는 각각 모든 헤드를 한데 모은 층이라서 출력 폭이 D가 아니라 H·D입니다(W_o의 입력도 H·D입니다).",
    },
    "hint_head_other_index": {
        "ja": "head_as_single(mha, {i}) に、ヘッド {j} の部分が入っています。ヘッド i の部分は、W_q, W_k, W_v では weight[i*D:(i+1)*D]、W_o では weight[:, i*D:(i+1)*D] です。ヘッドの番号が H − 1 − i や i + 1 などにずれていないか確かめてください。",
        "ko": "head_as_single(mha, {i})에 헤드 {j}에 해당하는 부분이 들어 있습니다. 헤드 i의 부분은 W_q, W_k, W_v에서는 weight[i*D:(i+1)*D], W_o에서는 weight[:, i*D:(i+1)*D]입니다. 헤드 번호가 H − 1 − i나 i + 1 등으로 어긋나지 않았는지 확인하세요.",
    },
    "demo_torch_mha_shapes": {
        "ja": "形状が違うので比べられません。(出力, 重み) の形状は、自分のモジュールが {mine}、nn.MultiheadAttention が {theirs} です。演習 3 と演習 6 のチェックの結果を見直してください（to_torch_mha で batch_first=True を指定したかなど）。",
        "ko": "모양이 달라서 비교할 수 없습니다. (출력, 가중치)의 모양은 직접 만든 모듈이 {mine}, nn.MultiheadAttention이 {theirs}입니다. 연습 문제 3과 연습 문제 6의 검사 결과를 다시 확인하세요(to_torch_mha에서 batch_first=True를 지정했는지 등).",
    },
    "hint_split_view_after_transpose": {
        "ja": "transpose したテンソルは連続していないので、そのままでは view できません。split_heads では順番を逆にして、まず view(B, T, H, D) で最後の軸をヘッドごとに切り分け、そのあと transpose(1, 2) で H を T の前に出します。ここで view を reshape に替えると、エラーは消えても軸の並びが混ざることがあります。",
        "ko": "transpose한 텐서는 메모리에서 연속적이지 않아서 그대로는 view할 수 없습니다. split_heads에서는 순서를 바꿔, 먼저 view(B, T, H, D)로 마지막 축을 헤드별로 나눈 다음 transpose(1, 2)로 H를 T 앞으로 옮깁니다. 여기서 view를 reshape로 바꾸면 오류는 사라져도 축의 순서가 뒤섞일 수 있습니다.",
    },
}
